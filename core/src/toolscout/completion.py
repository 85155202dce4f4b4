"""Shell completion for the `toolscout` command: `toolscout completion bash|zsh|fish`.

The script is written out from the argument parser itself (commands, plugin commands such
as `toolscout mcp`, flags and their choices), with the names of the installed backends and
the keys their options take, so it needs no Python at completion time and a TAB costs
nothing. It is a snapshot: install or remove a backend or plugin, and write it again.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["SHELLS", "Command", "commands_of", "completion_script"]

SHELLS = ("bash", "zsh", "fish")

#: What a flag's value completes to, by the flag's dest: backend names, `KEY=` of the
#: backends' options, or file names.
BACKEND_DESTS = frozenset({"backend"})
OPTION_DESTS = frozenset({"option"})
FILE_DESTS = frozenset({"catalog", "queries", "infeasible", "config"})


@dataclass
class Command:
    """One command of the parser (`""` is `toolscout` itself, `"mcp serve"` a subcommand)."""

    path: str
    help: str = ""
    commands: dict[str, str] = field(default_factory=dict)  # name -> help
    flags: dict[str, str] = field(default_factory=dict)  # --flag -> help
    #: flag -> what its value completes to: "backend", "option", "file", "" (anything),
    #: or the words it accepts.
    values: dict[str, str | tuple[str, ...]] = field(default_factory=dict)
    #: Words a positional argument accepts (`toolscout completion SHELL`).
    words: tuple[str, ...] = ()


def commands_of(parser: argparse.ArgumentParser) -> list[Command]:
    """Every command of `parser` and its subcommands, top-level first."""
    found: list[Command] = []

    def visit(parser: argparse.ArgumentParser, path: str, help: str) -> None:
        command = Command(path, help)
        found.append(command)
        children: list[tuple[str, argparse.ArgumentParser]] = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
                for name, child in action.choices.items():
                    command.commands[name] = helps.get(name, "")
                    children.append((name, child))
                continue
            if not action.option_strings:
                if action.choices is not None:
                    command.words += tuple(str(choice) for choice in action.choices)
                continue
            text = "" if action.help == argparse.SUPPRESS else (action.help or "")
            for flag in action.option_strings:
                command.flags[flag] = text
                if action.nargs != 0:
                    command.values[flag] = _value_kind(action)
        for name, child in children:
            visit(child, f"{path} {name}".strip(), command.commands[name])

    visit(parser, "", parser.description or "")
    return found


def _value_kind(action: argparse.Action) -> str | tuple[str, ...]:
    if action.choices is not None:
        return tuple(str(choice) for choice in action.choices)
    if action.dest in BACKEND_DESTS:
        return "backend"
    if action.dest in OPTION_DESTS:
        return "option"
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    if action.dest in FILE_DESTS or metavar.upper().endswith((".JSON", ".JSONL")):
        return "file"
    return ""


def installed_backends() -> tuple[list[str], list[str]]:
    """The installed backends' names, and the option keys any of them takes (`-o KEY=`)."""
    from toolscout.plugins import registry

    names: list[str] = []
    keys: set[str] = set()
    for name, entry in sorted(registry.backends().items()):
        names.append(name)
        model = getattr(entry.cls, "Options", None)
        keys.update(getattr(model, "model_fields", {}))
    return names, sorted(keys)


def completion_script(
    shell: str, parser: argparse.ArgumentParser, backends: Iterable[str], keys: Iterable[str]
) -> str:
    """The completion script of `parser` for `shell` (one of `SHELLS`)."""
    commands = commands_of(parser)
    prog = parser.prog
    backends, keys = list(backends), [f"{key}=" for key in keys]
    if shell == "bash":
        return _bash(prog, commands, backends, keys)
    if shell == "zsh":
        return _zsh(prog, commands, backends, keys)
    if shell == "fish":
        return _fish(prog, commands, backends, keys)
    raise ValueError(f"unknown shell {shell!r}; choose one of {', '.join(SHELLS)}")


def _words(words: Iterable[str]) -> str:
    return " ".join(shlex.quote(word) for word in words)


def _function(prog: str) -> str:
    return "_" + "".join(c if c.isalnum() else "_" for c in prog)


def _walk_cases(commands: list[Command], indent: str, set_path: str, skip: str) -> str:
    """`case` arms that follow the command line: a subcommand extends the path, a flag
    that takes a value skips the next word (shared by bash and zsh, whose `case` agree)."""
    lines = []
    for command in commands:
        for flag in command.values:
            lines.append(f'{indent}"{command.path}|{flag}") {skip} ;;')
        for name in command.commands:
            child = f"{command.path} {name}".strip()
            lines.append(f'{indent}"{command.path}|{name}") {set_path.format(child)} ;;')
    return "\n".join(lines)


def _value_cases(commands: list[Command], indent: str, backends: list[str], keys: list[str]) -> str:
    lines = []
    for command in commands:
        for flag, kind in command.values.items():
            if kind == "backend":
                words = _words(backends)
            elif kind == "option":
                words = _words(keys)
            elif kind in ("file", ""):
                words = "@files" if kind == "file" else "@any"
            else:
                words = _words(kind)
            lines.append(f'{indent}"{command.path}|{flag}") values={shlex.quote(words)} ;;')
    return "\n".join(lines)


def _word_cases(commands: list[Command], indent: str) -> str:
    lines = []
    for command in commands:
        flags = _words(command.flags)
        words = _words([*command.commands, *command.words])
        lines.append(
            f'{indent}"{command.path}") flags={shlex.quote(flags)}; '
            f"candidates={shlex.quote(words)} ;;"
        )
    return "\n".join(lines)


def _bash(prog: str, commands: list[Command], backends: list[str], keys: list[str]) -> str:
    name = _function(prog)
    return f"""# bash completion for {prog}, written by `{prog} completion bash`.
# Write it again after installing or removing a backend or plugin.
{name}() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" cmdpath="" word skip=0 i
    local values="" flags="" candidates=""
    if ((COMP_CWORD > 0)); then prev="${{COMP_WORDS[COMP_CWORD-1]}}"; fi
    # --flag=value: bash splits it at '=' into three words.
    if [[ "$cur" == "=" ]]; then cur=""; fi
    if [[ "$prev" == "=" && COMP_CWORD -gt 1 ]]; then prev="${{COMP_WORDS[COMP_CWORD-2]}}"; fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${{COMP_WORDS[i]}}"
        if ((skip)); then skip=0; continue; fi
        if [[ "$word" == "=" ]]; then skip=1; continue; fi
        case "$cmdpath|$word" in
{_walk_cases(commands, " " * 12, 'cmdpath="{}"', "skip=1")}
        esac
    done
    case "$cmdpath|$prev" in
{_value_cases(commands, " " * 8, backends, keys)}
    esac
    if [[ -n "$values" ]]; then
        if [[ "$values" == "@files" ]]; then
            COMPREPLY=($(compgen -f -- "$cur"))
        elif [[ "$values" != "@any" ]]; then
            COMPREPLY=($(compgen -W "$values" -- "$cur"))
            if [[ "${{COMPREPLY[0]}}" == *= ]]; then compopt -o nospace 2>/dev/null; fi
        fi
        return 0
    fi
    case "$cmdpath" in
{_word_cases(commands, " " * 8)}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
    fi
    return 0
}}
complete -o default -F {name} {prog}
"""


def _zsh(prog: str, commands: list[Command], backends: list[str], keys: list[str]) -> str:
    name = _function(prog)
    return f"""#compdef {prog}
# zsh completion for {prog}, written by `{prog} completion zsh`.
# Write it again after installing or removing a backend or plugin.
{name}() {{
    # Not `path`: in zsh that is the array tied to PATH.
    local cur="${{words[CURRENT]}}" prev="${{words[CURRENT-1]}}" cmdpath="" word skip=0 i
    local values="" flags="" candidates=""
    for ((i = 2; i < CURRENT; i++)); do
        word="${{words[i]}}"
        if ((skip)); then skip=0; continue; fi
        case "$cmdpath|$word" in
{_walk_cases(commands, " " * 12, 'cmdpath="{}"', "skip=1")}
        esac
    done
    case "$cmdpath|$prev" in
{_value_cases(commands, " " * 8, backends, keys)}
    esac
    if [[ -n "$values" ]]; then
        if [[ "$values" == "@files" ]]; then
            _files
        elif [[ "$values" != "@any" ]]; then
            local -a choices=(${{(z)values}})
            if [[ "${{choices[1]}}" == *= ]]; then
                compadd -S '' -- "${{(Q)choices[@]}}"
            else
                compadd -- "${{(Q)choices[@]}}"
            fi
        fi
        return 0
    fi
    case "$cmdpath" in
{_word_cases(commands, " " * 8)}
    esac
    if [[ "$cur" == -* ]]; then
        local -a choices=(${{(z)flags}})
    else
        local -a choices=(${{(z)candidates}})
    fi
    compadd -- "${{(Q)choices[@]}}"
}}
if [[ "$funcstack[1]" == "{name}" ]]; then
    {name} "$@"
else
    compdef {name} {prog}
fi
"""


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(prog: str, commands: list[Command], backends: list[str], keys: list[str]) -> str:
    name = f"__{_function(prog).lstrip('_')}_path"
    walk = []
    for command in commands:
        for flag in command.values:
            walk.append(
                f"            case {_fish_quote(f'{command.path}|{flag}')}\n"
                "                set skip 1"
            )
        for sub in command.commands:
            child = f"{command.path} {sub}".strip()
            walk.append(
                f"            case {_fish_quote(f'{command.path}|{sub}')}\n"
                f"                set path {_fish_quote(child)}"
            )
    lines = [
        f"# fish completion for {prog}, written by `{prog} completion fish`.",
        "# Write it again after installing or removing a backend or plugin.",
        f"function {name}",
        "    set -l words (commandline -opc)",
        '    set -l path ""',
        "    set -l skip 0",
        "    for word in $words[2..-1]",
        "        if test $skip = 1",
        "            set skip 0",
        "            continue",
        "        end",
        '        switch "$path|$word"',
        *walk,
        "        end",
        "    end",
        '    echo "$path"',
        "end",
        f"complete -c {prog} -f",
    ]
    for command in commands:
        test = 'test "$(' + name + ')" = ' + _fish_quote(command.path)
        when = f"-n {_fish_quote(test)}"
        for sub, text in command.commands.items():
            lines.append(f"complete -c {prog} {when} -a {_fish_quote(sub)} -d {_fish_quote(text)}")
        for word in command.words:
            lines.append(f"complete -c {prog} {when} -a {_fish_quote(word)}")
        for flag, text in command.flags.items():
            spec = f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"
            kind = command.values.get(flag)
            if kind is None:
                value = ""
            elif kind == "file":
                value = " -r -F"
            elif kind == "":
                value = " -x"
            else:
                words = backends if kind == "backend" else keys if kind == "option" else kind
                value = f" -x -a {_fish_quote(' '.join(words))}"
            lines.append(f"complete -c {prog} {when} {spec}{value} -d {_fish_quote(text)}")
    return "\n".join(lines) + "\n"
