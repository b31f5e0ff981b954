"""The JSON report (schemas/report.schema.json); every string valid UTF-8 (``clean_json``)."""

from __future__ import annotations

import json
from typing import Any

from context_doctor.render.escape import clean_json
from context_doctor.report import Report


def report_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def error_json(problem: str, remedy: str) -> str:
    payload: dict[str, Any] = {"ok": False, "error": problem, "remedy": remedy}
    return json.dumps(clean_json(payload), indent=2, ensure_ascii=False) + "\n"
