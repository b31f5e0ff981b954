"""Renderers: each turns a :class:`~context_doctor.report.report.Report` into text."""
