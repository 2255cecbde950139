"""What operators see: health checks, metrics, structured logs."""
