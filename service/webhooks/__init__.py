"""Webhooks: endpoints, the outbox written with each change, deliveries."""
