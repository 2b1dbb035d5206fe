"""Retention: finished matches leave Redis for compressed files in an archive directory (``airship archiver``).

See :mod:`services.archive.archiver` for the process and :mod:`services.archive.files` for the layout
``<archive_dir>/<partition>/<match_id>.jsonl.gz`` that the gateway and ``airship replay`` read.
"""
