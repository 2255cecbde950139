"""``basra db upgrade|downgrade|current`` (Alembic migrations through Flask-Migrate),
``basra keys create|list|revoke`` (front ends' API keys) and ``basra ledger check`` (the
coins' ledger), against ``DATABASE_URL``."""

from __future__ import annotations

import flask_migrate


def run_db_command(command: str, revision: str | None) -> int:
    """Run one migration command against ``DATABASE_URL`` (SQLite file by default)."""
    from .app import create_app
    from .storage import MIGRATIONS, migrations, upgrade

    app = create_app()
    if command == "upgrade":
        upgrade(app, revision or "head")
        return 0
    migrations(app)
    with app.app_context():
        if command == "downgrade":
            flask_migrate.downgrade(directory=MIGRATIONS, revision=revision or "-1")
        else:
            flask_migrate.current(directory=MIGRATIONS)
    return 0


def run_keys_command(command: str, name: str | None, origins: list[str], *,
                     key: str | None = None, grace: int = 0, role: str | None = None,
                     staff_name: str | None = None) -> int:
    """Create a key (printed once, one line), list tenants and keys, revoke a tenant's
    (or one), print or rotate its player-token secret."""
    import sys

    from . import create_app
    from .engine.errors import BasraError
    from .players import service as players
    from .tenants import service as tenants
    from .tenants import staff
    from .tenants.audit import COMMAND_LINE
    from .tenants.enums import StaffRole

    if command != "list" and not (name and 0 < len(name) <= 64):
        print(f"basra keys {command}: give a tenant NAME of 1 to 64 characters", file=sys.stderr)
        return 2
    app = create_app()
    with app.app_context():
        try:
            if command == "create" and role is not None:
                assert name is not None
                if not (staff_name and 0 < len(staff_name) <= 64) or origins:
                    print("basra keys create --role: give --name PERSON (1 to 64 characters) "
                          "and no --origin", file=sys.stderr)
                    return 2
                print(staff.create_staff_key(name, staff_name, StaffRole(role)))
            elif command == "create":
                assert name is not None
                print(tenants.create_key(name, origins))
            elif command == "secret":
                assert name is not None
                print(players.player_secret(tenants.tenant_pk(name)))
            elif command == "rotate-secret":
                assert name is not None
                if not 0 <= grace <= players.MAX_GRACE_SECONDS:
                    print(f"basra keys rotate-secret: --grace is 0 to "
                          f"{players.MAX_GRACE_SECONDS} seconds", file=sys.stderr)
                    return 2
                print(players.rotate_secret(tenants.tenant_pk(name), grace, COMMAND_LINE))
            elif command == "revoke":
                assert name is not None
                revoked = tenants.revoke_keys(name, key)
                print(f"revoked {revoked} key(s) of {name}", file=sys.stderr)
                return 0 if revoked else 1
            else:
                for t in tenants.list_keys():
                    keys = " ".join(f"{prefix}({','.join(origins) or 'server'})"
                                    for prefix, origins in t.active)
                    staffed = " ".join(f"{prefix}({person},{grade})"
                                       for prefix, person, grade in t.staff)
                    print(f"{t.name}\t{len(t.active)} active ({keys or '-'})"
                          f"\t{t.revoked} revoked\tstaff: {staffed or '-'}")
        except BasraError as exc:
            print(f"basra keys: {exc.message}", file=sys.stderr)
            return 2
    return 0


def run_ledger_command(name: str | None, *, as_json: bool = False) -> int:
    """Check the ledger (of one front end, or all): each breach printed, exit 1 if any."""
    import dataclasses
    import json
    import sys

    from . import create_app
    from .coins import check
    from .engine.errors import BasraError
    from .tenants import service as tenants

    app = create_app()
    with app.app_context():
        try:
            tenant = tenants.tenant_pk(name) if name else None
        except BasraError as exc:
            print(f"basra ledger: {exc.message}", file=sys.stderr)
            return 2
        breaches = check.run(tenant)
    if as_json:
        print(json.dumps([dataclasses.asdict(b) for b in breaches], indent=2))
    else:
        for breach in breaches:
            print(breach)
        print(f"ledger {'broken: ' + str(len(breaches)) + ' breach(es)' if breaches else 'whole'}"
              f" ({name or 'every front end'})", file=sys.stderr)
    return 1 if breaches else 0
