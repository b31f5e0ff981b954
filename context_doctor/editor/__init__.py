"""The editor: every change the doctor makes to working memory, written through ``write/``.

The fail-closed verbs and the gates every final text passes (:mod:`.edit`,
:mod:`.gates`), batches of edits written all or none (:mod:`.apply`, :mod:`.edits_file`),
``log add`` (:mod:`.log`), the state compiler (:mod:`.state`) and the fixes
``check --fix`` applies (:mod:`.fixes`). Each judges with the model's own parsers, so the
editor and the doctor never disagree about what a file says; every byte goes through the
one write path (:mod:`context_doctor.write`). Python callers import
:mod:`context_doctor.edit`; :mod:`.vocabulary` names a refusal's override in their words.
"""
