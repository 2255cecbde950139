"""Coins: a front end's currencies, its players' wallets and the double-entry ledger
every coin moves on (transfers between accounts, holds in escrow), and its checker."""
