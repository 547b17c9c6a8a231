#!/usr/bin/env python3
"""Validate gcverify JSON reports against docs/schemas/ (Debian's python3-jsonschema).

usage: validate_reports.py SCHEMA.json FILE.json...   (exit 1 on the first invalid file)
"""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:10]:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: {where}: {e.message}", file=sys.stderr)
        if errors:
            bad += 1
        else:
            print(f"{path}: valid ({schema.get('title', sys.argv[1])})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
