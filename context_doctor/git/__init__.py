"""The only place git runs: the hardened runner, repositories, the history pass, repository facts."""
