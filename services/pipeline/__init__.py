"""The moving parts: command transport, event store, worker, projector, lobby, client."""
