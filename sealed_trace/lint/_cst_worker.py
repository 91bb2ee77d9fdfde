"""The libcst pass of the sealed modules, in a process of its own (``python -m`` this module).

The engine hands this process the sealed modules' texts while it scans the tree itself: the
two run on separate cores instead of taking turns on one interpreter, and a crash of the
native parser ends this process, not the lint (the engine reports the file as ST001).

Protocol: standard input holds one JSON object per line, ``{"key", "text", "module",
"package", "target"}``; standard output gets one line per job, ``{"key", "facts"}`` (facts as
:meth:`FileFacts.to_json`), in the same order.
"""

from __future__ import annotations

import json
import sys

from sealed_trace.lint._extract import extract_facts


def main() -> int:
    """Serve the jobs on standard input; 0 when every job was answered."""
    for line in sys.stdin:
        job = json.loads(line)
        raw = job.get("target")
        target = (int(raw[0]), int(raw[1])) if raw else None
        facts = extract_facts(job["text"], job["module"], bool(job["package"]), target)
        sys.stdout.write(json.dumps({"key": job["key"], "facts": facts.to_json()}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
