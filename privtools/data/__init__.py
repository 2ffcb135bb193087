"""Package data: small derived tables (see README.md in this directory)."""
