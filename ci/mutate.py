#!/usr/bin/env python3
"""Seeded source mutations of decoders/*.c, and how many the gate kills.

Used by ci/mutate.sh (read it first). For each of N mutants, chosen from
every mutation site of decoders/*.c by a seeded RNG (same seed, same sources:
same mutants, same order):

  1. apply one small change to a copy of the sources (a flipped comparison,
     an off-by-one constant, a swapped arithmetic or logical operator);
  2. rebuild only the gcverify binary in that copy's build directory;
  3. run the gate: `gcverify sweep --scale small` and `--scale edge` against the
     copy's golden/metrics-<scale>.yaml and golden/frames-<scale>.yaml;
  4. if the gate passes, compare its JSON report with the unmutated one:
     identical (every metric, every column digest, every frame hash) means
     the mutant changes no decoded value on the corpus: "equivalent";
     otherwise run the test suite (ctest) on it: a failing test kills it,
     else it "survived".

Every step runs in its own process group under a time limit; on timeout the
whole group is killed and the mutant counts as killed by the timeout (a
decoder that stops terminating has been caught). A mutant that does not
compile is "stillborn" and left out of the figures.

Output: one line per mutant, then the totals and every surviving line.
--json F also writes them as JSON. Figures only; exit 0 unless the script
itself fails (a mutant's fate is not an error).
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

# (pattern, replacements): each match of pattern in a code line is a site;
# each replacement one mutant of that site.
OPERATORS = [
    (r"(?<![<>=!])<(?![<=])", ["<="]),
    (r"(?<![-<>=!])>(?![>=])", [">="]),
    (r"<=", ["<"]),
    (r">=", [">"]),
    (r"==", ["!="]),
    (r"!=", ["=="]),
    (r"&&", ["||"]),
    (r"\|\|", ["&&"]),
    (r"(?<=[\w)\]] )\+ (?=[\w(])", ["- "]),
    (r"(?<=[\w)\]] )- (?=[\w(])", ["+ "]),
    (r"(?<![\w.])([1-9][0-9]*)u?(?![\w.])", None),  # integer constant: +1
    (r"(?<![\w.])0(?![\w.x])", ["1"]),
]


def code_part(line):
    """The part of a line that is code: no // comment, no string literal."""
    out, i, in_str = [], 0, False
    while i < len(line):
        c = line[i]
        if in_str:
            if c == "\\":
                out.append("  ")
                i += 2
                continue
            if c == '"':
                in_str = False
            out.append(" ")
        elif c == '"':
            in_str = True
            out.append(" ")
        elif line.startswith("//", i):
            break
        elif c == "'":
            j = line.find("'", i + 1 if line[i + 1:i + 2] != "\\" else i + 3)
            j = j if j > 0 else len(line) - 1
            out.append(" " * (j - i + 1))
            i = j + 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def sites(src_dir):
    """Every (file, line number, column, old, new) mutation site."""
    found = []
    ddir = os.path.join(src_dir, "decoders")
    for name in sorted(os.listdir(ddir)):
        if not name.endswith(".c"):
            continue
        with open(os.path.join(ddir, name)) as f:
            lines = f.read().split("\n")
        in_comment = False
        for n, line in enumerate(lines, 1):
            text = line
            if in_comment:
                end = text.find("*/")
                if end < 0:
                    continue
                text = " " * (end + 2) + text[end + 2:]
                in_comment = False
            # block comments opening on this line
            while "/*" in text:
                a = text.find("/*")
                b = text.find("*/", a + 2)
                if b < 0:
                    text = text[:a]
                    in_comment = True
                    break
                text = text[:a] + " " * (b + 2 - a) + text[b + 2:]
            code = code_part(text)
            s = code.strip()
            # declarations of data (column tables, doc strings) and the
            # preprocessor are not behaviour
            if not s or s.startswith("#") or "GC_COL(" in s or s.startswith("[") or \
                    s.startswith("static const") or s.startswith("const gc_"):
                continue
            for pat, repl in OPERATORS:
                for m in re.finditer(pat, code):
                    old = m.group(0)
                    news = repl if repl is not None else [str(int(m.group(1)) + 1)]
                    for new in news:
                        found.append((f"decoders/{name}", n, m.start(), old, new))
    return found


def run(cmd, cwd, timeout, env=None, log=None):
    """Run cmd in its own process group; (returncode or 'timeout', seconds)."""
    t0 = time.monotonic()
    with open(log or os.devnull, "w") as out:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = "timeout"
    return rc, time.monotonic() - t0


def apply(src_dir, site, restore):
    path, n, col, old, new = site
    full = os.path.join(src_dir, path)
    with open(full) as f:
        lines = f.read().split("\n")
    line = lines[n - 1]
    if restore is None:
        assert line[col:col + len(old)] == old, (site, line)
        lines[n - 1] = line[:col] + new + line[col + len(old):]
    else:
        lines[n - 1] = restore
    with open(full, "w") as f:
        f.write("\n".join(lines))
    return line


def normalised_report(path):
    with open(path) as f:
        doc = json.load(f)
    doc.pop("gcverify", None)
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True, help="the checkout to copy")
    ap.add_argument("--work", required=True, help="scratch directory (copy + build)")
    ap.add_argument("--count", type=int, default=80)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per step per mutant")
    ap.add_argument("--tests", default="test_dec|test_tfrag|test_texture|test_lz|test_lod|"
                    "test_vif|test_tables|test_harden|test_digest",
                    help="ctest -R regex run on gate survivors ('' = the whole suite)")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--corpora", default="small,edge",
                    help="synthetic scales the gate sweeps, each against golden/metrics-<scale>"
                    ".yaml and golden/frames-<scale>.yaml")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()

    src = os.path.join(a.work, "src")
    build = os.path.join(a.work, "build")
    os.makedirs(a.work, exist_ok=True)
    # a fresh copy of the sources (never the checkout itself: it is mutated)
    if os.path.exists(src):
        shutil.rmtree(src)
    shutil.copytree(a.src, src, ignore=shutil.ignore_patterns(
        ".git", "build*", ".cache-gcverify", "*.o"))
    env = dict(os.environ)
    env.setdefault("GC_CACHE_DIR", os.path.join(a.work, "cache"))
    env["GC_FRAME_STORE"] = os.path.join(a.work, "frames")
    env.pop("CI", None)
    rc, _ = run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], a.work,
                600, env, os.path.join(a.work, "configure.log"))
    if rc != 0:
        sys.exit(f"mutate: cmake configure failed (see {a.work}/configure.log)")
    gcv = os.path.join(build, "gcverify")

    corpora = [c for c in a.corpora.split(",") if c]

    def gate(tag):
        """Sweep every corpus against its baselines: (first failing exit or 0, seconds, the
        normalised reports by corpus, or None for a failed sweep)."""
        total, reports = 0.0, {}
        for scale in corpora:
            out = os.path.join(a.work, f"report-{tag}-{scale}.json")
            if os.path.exists(out):
                os.remove(out)
            rc, secs = run([gcv, "sweep", "--scale", scale, "--quiet", "--jobs", a.jobs,
                            "--baseline", os.path.join(src, f"golden/metrics-{scale}.yaml"),
                            "--frames-golden", os.path.join(src, f"golden/frames-{scale}.yaml"),
                            "--json", out], src, a.timeout, env,
                           os.path.join(a.work, f"gate-{tag}-{scale}.log"))
            total += secs
            if rc != 0:
                return rc, total, None
            reports[scale] = normalised_report(out)
        return 0, total, reports

    rc, _ = run(["cmake", "--build", build, "-j", a.jobs, "--target", "gcverify"], a.work, 1800,
                env, os.path.join(a.work, "build-ref.log"))
    if rc != 0:
        sys.exit("mutate: the unmutated sources do not build")
    rc, secs, ref = gate("ref")
    if rc != 0:
        sys.exit(f"mutate: the unmutated gate does not pass (exit {rc}; {a.work}/gate-ref-*.log)")
    print(f"mutate: reference gate passes in {secs:.1f} s", flush=True)

    all_sites = sites(src)
    rng = random.Random(a.seed)
    chosen = rng.sample(all_sites, min(a.count, len(all_sites)))
    print(f"mutate: {len(all_sites)} sites in decoders/*.c, {len(chosen)} mutants (seed {a.seed})",
          flush=True)
    results = []
    tests_built = False
    for i, site in enumerate(chosen, 1):
        path, n, col, old, new = site
        orig = apply(src, site, None)
        res = {"file": path, "line": n, "column": col + 1, "from": old, "to": new,
               "source": orig.strip()}
        rc, bsecs = run(["cmake", "--build", build, "-j", a.jobs, "--target", "gcverify"],
                        a.work, 600, env, os.path.join(a.work, "build-mutant.log"))
        if rc != 0:
            res["fate"] = "stillborn"
        else:
            grc, gsecs, out = gate("mutant")
            res["gate_exit"] = grc
            if grc != 0:
                res["fate"] = "killed"
                res["by"] = "gate timeout" if grc == "timeout" else f"gate exit {grc}"
            elif out == ref:
                res["fate"] = "equivalent"
            else:
                # the gate passed but some output moved: the test suite's turn
                trc, _ = run(["cmake", "--build", build, "-j", a.jobs], a.work, 1800, env,
                             os.path.join(a.work, "build-tests.log"))
                tests_built = True
                cmd = ["ctest", "--test-dir", build, "--timeout", str(int(a.timeout)), "-j",
                       a.jobs]
                if a.tests:
                    cmd += ["-R", a.tests]
                trc, _ = run(cmd, a.work, a.timeout * 20, env,
                             os.path.join(a.work, f"tests-{i}.log")) if trc == 0 else (trc, 0)
                if trc != 0:
                    res["fate"] = "killed"
                    res["by"] = "tests timeout" if trc == "timeout" else "tests"
                else:
                    res["fate"] = "survived"
        apply(src, site, orig)
        results.append(res)
        print(f"mutate: [{i}/{len(chosen)}] {res['fate']:<10} {path}:{n}: '{old}' -> '{new}'"
              f"{'  (' + res['by'] + ')' if 'by' in res else ''}", flush=True)
    # leave the copy's build as the unmutated sources
    run(["cmake", "--build", build, "-j", a.jobs, "--target", "gcverify"], a.work, 1800, env)
    del tests_built

    tally = {k: sum(1 for r in results if r["fate"] == k)
             for k in ("killed", "survived", "equivalent", "stillborn")}
    live = tally["killed"] + tally["survived"]
    by_gate = sum(1 for r in results if r["fate"] == "killed" and r["by"].startswith("gate"))
    print(f"mutate: {len(results)} mutants: {tally['killed']} killed ({by_gate} by the gate), "
          f"{tally['survived']} survived, {tally['equivalent']} equivalent, "
          f"{tally['stillborn']} stillborn")
    if live:
        print(f"mutate: kill rate of the mutants that change an output: "
              f"{100.0 * tally['killed'] / live:.1f}% ({tally['killed']}/{live}); by the gate "
              f"alone {100.0 * by_gate / live:.1f}%")
    for r in results:
        if r["fate"] == "survived":
            print(f"survived: {r['file']}:{r['line']}: '{r['from']}' -> '{r['to']}': {r['source']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seed": a.seed, "count": len(results), "tally": tally,
                       "killed_by_gate": by_gate, "mutants": results}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
