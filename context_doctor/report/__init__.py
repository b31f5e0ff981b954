"""What an audit produces: findings (with their fixes as data) and the report every renderer reads (docs/output.md)."""
