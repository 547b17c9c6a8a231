#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes gcverify(1) and the bash and zsh completions from the built binary's
own --help texts (issue 14: the man page and --help cannot drift, because the
page is made from the text at build time; tests/cli_docs.sh compares them).

usage: gen_cli_docs.py GCVERIFY OUTDIR VERSION
  OUTDIR/gcverify.1          the man page: NAME, SYNOPSIS, DESCRIPTION (the
                             general --help), one COMMANDS subsection per
                             command holding its --help verbatim
  OUTDIR/gcverify.bash       bash completion (commands, each command's options)
  OUTDIR/_gcverify           zsh completion (same lists)
"""
import re
import subprocess
import sys


def help_text(exe, *args):
    r = subprocess.run([exe, *args, "--help"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"gen_cli_docs: '{exe} {' '.join(args)} --help' exited {r.returncode}")
    return r.stdout


def commands_of(general):
    """The command names listed under 'commands:' of the general help."""
    names, inside = [], False
    for line in general.splitlines():
        if line.startswith("commands:"):
            inside = True
            continue
        if inside:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s{2,}\S", line)
            if not m:
                break
            names.append(m.group(1))
    if not names:
        sys.exit("gen_cli_docs: no 'commands:' list in gcverify --help")
    return names


def options_of(text):
    """Every long option a help text names, in order of first mention."""
    seen = []
    for o in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text):
        if o not in seen:
            seen.append(o)
    if "--help" not in seen:
        seen.append("--help")
    return seen


def roff_verbatim(text):
    """A help text as a no-fill block: backslashes doubled, a leading '.' or
    "'" protected with the zero-width \\&, so nroff prints it unchanged."""
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return ".nf\n" + "\n".join(out) + "\n.fi\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    exe, outdir, version = sys.argv[1:]
    general = help_text(exe)
    cmds = commands_of(general)
    per = {c: help_text(exe, c) for c in cmds}

    man = [
        f'.TH GCVERIFY 1 "" "gcverify {version}" "User Commands"',
        ".SH NAME",
        "gcverify \\- regression verification for Ratchet & Clank: Going Commando levels",
        ".SH SYNOPSIS",
        ".B gcverify",
        ".I command",
        "[options]",
        ".SH DESCRIPTION",
        "The text of",
        ".BR \"gcverify --help\" :",
        roff_verbatim(general).rstrip("\n"),
        ".SH COMMANDS",
        "Each subsection is the text of",
        ".BR \"gcverify \\fIcommand\\fP --help\"",
        "(the same as",
        ".BR \"gcverify help \\fIcommand\\fP\" ).",
    ]
    for c in cmds:
        man.append(f".SS {c}")
        man.append(roff_verbatim(per[c]).rstrip("\n"))
    man.append(".SH SEE ALSO")
    man.append("The project's README.md and docs/ (report format, invariants, golden files).")
    with open(f"{outdir}/gcverify.1", "w") as f:
        f.write("\n".join(man) + "\n")

    # bash: complete the command first, then that command's options; files
    # and directories for everything else (most values are paths).
    cases = "\n".join(
        f"        {c}) opts='{' '.join(options_of(per[c]))}' ;;" for c in cmds)
    bash = f"""# bash completion for gcverify {version}; generated from its --help texts
_gcverify() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W 'help {' '.join(cmds)} --help --version' -- "$cur"))
        return
    fi
    local cmd=${{COMP_WORDS[1]}} opts=''
    if [ "$cmd" = help ]; then
        [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W '{' '.join(cmds)}' -- "$cur"))
        return
    fi
    case "$cmd" in
{cases}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F _gcverify gcverify
"""
    with open(f"{outdir}/gcverify.bash", "w") as f:
        f.write(bash)

    def zq(s):
        return s.replace("'", "'\\''")

    summaries = {}
    for line in general.splitlines():
        m = re.match(r"^  ([a-z][a-z0-9-]*)\s{2,}(\S.*)$", line)
        if m and m.group(1) in cmds:
            summaries[m.group(1)] = m.group(2)
    zcmds = " ".join(f"'{c}:{zq(summaries.get(c, ''))}'" for c in cmds)
    zcases = "\n".join(
        f"        {c}) opts=({' '.join(options_of(per[c]))}) ;;" for c in cmds)
    zsh = f"""#compdef gcverify
# zsh completion for gcverify {version}; generated from its --help texts
_gcverify() {{
    local -a cmds opts
    cmds=({zcmds} 'help:print the help of a command')
    if (( CURRENT == 2 )); then
        _describe -t commands 'gcverify command' cmds
        return
    fi
    if [[ $words[2] == help ]]; then
        (( CURRENT == 3 )) && _describe -t commands 'gcverify command' cmds
        return
    fi
    case $words[2] in
{zcases}
    esac
    if [[ $PREFIX == -* ]]; then
        compadd -- $opts
    else
        _files
    fi
}}
_gcverify "$@"
"""
    with open(f"{outdir}/_gcverify", "w") as f:
        f.write(zsh)


if __name__ == "__main__":
    main()
