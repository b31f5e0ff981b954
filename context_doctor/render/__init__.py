"""Renderers: each turns a :class:`~context_doctor.report.Report` into text."""
