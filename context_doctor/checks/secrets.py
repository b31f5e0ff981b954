"""Secrets: credential material anywhere in the context layer (the seed: "never record secrets")."""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import PROJECT_FILE_CHECKS, Context
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "hygiene"


@PROJECT_FILE_CHECKS.check(
    "secret-in-context",
    severity=Severity.DEFECT,
    summary="a tier file, session log, CURRENT_STATE.json or artifact holds credential material",
    remedy="Remove the secret from the file and rotate it (it is in git history now: treat it as "
    "leaked); record where the credential lives, never its value.",
    explanation="""
        The context layer is committed, pushed and read by every agent that resumes the
        project: a token recorded there is published. The seed's rule is absolute: no token
        values, OAuth or callback URLs, credential material. Every line of CONTEXT.md,
        REFERENCE.md, reference/*.md, sessions/*.md, CURRENT_STATE.json and
        resources/artifacts/*.md is scanned, code blocks included: known token formats
        (GitHub, GitLab, Slack, AWS, Google, OpenAI and Anthropic keys, Stripe, JWTs and more,
        via the detect-secrets library), private-key blocks, URLs carrying a password or a
        `client_secret`, `code`, `access_token`, `refresh_token`, `token` or `key` value,
        high-entropy values assigned to a key named like a secret, a quoted real-looking value
        assigned to one (`password = "…"`), and an OAuth or callback URL in an attribution
        line's `ref`. A token wrapped across a line break is found too; each secret is
        reported once, however many detectors see it. Commit shas, UUIDs, dates and placeholders (`<token>`,
        `${VAR}`, `xxxx`) are not secrets. The finding names the file, line and kind and shows
        only the first 4 characters of the value, and no other finding quotes it: a report
        never spreads the secret. A known token format pasted into a file or folder name
        (`deploy-ghp_….md`) is found as well, once per name, and redacted from every path
        the report prints; rename it with `git mv`.
        Removing the value from the file does not remove it from git history: rotate it.
        Applies to every project; unreadable files are record-unreadable's.""",
)
def secret_in_context(project: Project, ctx: Context) -> Iterator[Issue]:
    for rel_path, hit in project.secret_hits:
        yield Issue(
            f"{hit.kind} ({hit.redacted}): credential material must never be recorded",
            rel_path,
            hit.line or None,  # 0: the token is in the file's path
            remedy=None if hit.line else _RENAME,
        )


_RENAME = (
    "Rename the file or folder (`git mv`) so no name holds the secret, and rotate the secret (it is in "
    "git history now: treat it as leaked)."
)
