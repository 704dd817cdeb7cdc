"""``toolprune config path|show|get|set|unset|set-key|unset-key`` and ``toolprune scorer test``."""

from __future__ import annotations

import time

from toolprune import apikey, config
from toolprune.cli.streams import Environment
from toolprune.configkeys import KEYS, check_value
from toolprune.errors import ExitCode, ToolpruneError, UsageError

NUMBERS = {"timeout": float, "tail": int, "max_chars": int, "max_lines": int}


def path(env: Environment) -> int:
    env.write_output(f"{config.config_path()}\n".encode())
    return ExitCode.OK


def _source(env: Environment, name: str) -> tuple[str | None, str]:
    """The effective value of a config key and where it comes from."""
    variable = KEYS[name].env
    source = env.environ.source(variable)
    if source is None:
        return None, "default"
    return env.environ[variable], source


def _default(name: str) -> object:
    """What a key is when nothing sets it (None: unset, e.g. no remote server)."""
    if name == "spill_dir":
        from toolprune.settings import default_spill_dir

        return str(default_spill_dir())
    if name == "log":
        from toolprune.cli.logfile import DEFAULT_NAME
        from toolprune.settings import state_dir

        return str(state_dir() / DEFAULT_NAME)
    from toolprune.cli.flags import FLAGS

    flag = FLAGS.get(name)
    return None if flag is None else flag.default


def _problem(name: str, value: object) -> str | None:
    """Why ``value`` of key ``name`` would be refused (None: it is fine, or unset)."""
    if value is None:
        return None
    try:
        check_value(name, str(value))
    except UsageError as exc:
        return exc.message
    return None


def show(env: Environment, as_json: bool) -> int:
    loaded = env.environ.config
    settings = {
        name: {**dict(zip(("value", "source"), _source(env, name))), "default": _default(name)} for name in KEYS
    }
    for name, entry in settings.items():  # a bad value from the environment is named, not shown as if in use
        entry["problem"] = _problem(name, entry["value"])
    try:
        key, where = apikey.api_key()
        key_state = {"set": key is not None, "source": where if key else None, "problem": None if key else where}
    except apikey.KeyProblem as exc:
        key_state = {"set": False, "source": None, "problem": str(exc)}
    report = {
        "config_file": str(loaded.path),
        "exists": loaded.exists,
        "invalid": loaded.invalid,
        "key_file": str(apikey.key_path()),
        "api_key": key_state,
        "settings": settings,
        "destination": _destination(env),
    }
    if as_json:
        import json

        env.write_output((apikey.without_keys(json.dumps(report, indent=2, ensure_ascii=False)) + "\n").encode())
        return ExitCode.OK
    state = "invalid: " + loaded.invalid if loaded.invalid else ("ok" if loaded.exists else "none yet")
    lines = [f"config file: {loaded.path} ({state})"]
    width = max(map(len, KEYS))
    for name, entry in settings.items():
        if entry["value"] is not None:
            problem = f"  ← {entry['problem']}" if entry["problem"] else ""
            lines.append(f"  {name:<{width}}  {entry['value']}  ({entry['source']}){problem}")
        elif entry["default"] is not None:
            lines.append(f"  {name:<{width}}  {entry['default']}  (default)")
        else:
            lines.append(f"  {name:<{width}}  -  (not set)")
    if key_state["set"]:
        lines.append(f"api key: set (from {key_state['source']}; never shown)")
    else:
        lines.append(f"api key: not set ({key_state['problem']})")
    destination = report["destination"]
    if destination is not None:
        lines.append(f"scoring: {destination}")
    env.write_output((apikey.without_keys("\n".join(lines)) + "\n").encode())  # a key set as a value by mistake
    return ExitCode.OK


def _destination(env: Environment) -> str | None:
    """Where the configured scorer sends data, or why it cannot (None for the local scorer)."""
    environ = env.environ
    scorer = (environ.get("TOOLPRUNE_SCORER") or "lexical").strip().lower()
    if scorer != "systemone":
        return None
    if environ.config.invalid:
        return "disabled: the config file is invalid"
    from toolprune.scorers.endpoints import resolve

    try:
        endpoint = resolve(
            environ.get("TOOLPRUNE_PROVIDER"), environ.get("TOOLPRUNE_BASE_URL"),
            environ.get("TOOLPRUNE_API_PATH"), environ.get("TOOLPRUNE_MODEL"),
        )
    except UsageError as exc:
        return f"not usable: {exc.message}"
    return f"{endpoint.url} (model {endpoint.model})"


def _document(loaded: config.Config) -> dict:
    if loaded.invalid:
        raise UsageError(
            f"the config file {loaded.path} is invalid ({loaded.invalid}); fix or remove it by hand: "
            "toolprune does not overwrite it"
        )
    return dict(loaded.document)  # as read and checked once: the file is not opened again


def get(env: Environment, name: str) -> int:
    loaded = config.read()
    document = _document(loaded)
    if name not in KEYS:
        raise UsageError(f"unknown config key {name!r}; known: {', '.join(KEYS)}")
    if name not in document:
        default = _default(name)
        env.say(f"toolprune: {name} is not set in the config file {loaded.path}"
                + (f" (the default is {default})" if default is not None else ""))
        return ExitCode.NOT_RETURNED
    env.write_output(f"{document[name]}\n".encode())
    return ExitCode.OK


def set_(env: Environment, name: str, value: str) -> int:
    value = check_value(name, value)
    loaded = config.read()
    document = _document(loaded)
    document[name] = NUMBERS[name](value) if name in NUMBERS else value
    _save(loaded, document)
    return ExitCode.OK


def unset(env: Environment, name: str) -> int:
    if name not in KEYS:
        raise UsageError(f"unknown config key {name!r}; known: {', '.join(KEYS)}")
    loaded = config.read()
    document = _document(loaded)
    if document.pop(name, None) is not None:
        _save(loaded, document)
    return ExitCode.OK


def _save(loaded: config.Config, document: dict) -> None:
    try:
        config.write(loaded.path, document)
    except OSError as exc:
        raise ToolpruneError(f"cannot write the config file {loaded.path}: {exc.strerror or exc}") from None


def set_key(env: Environment) -> int:
    """Read the key from a hidden prompt (a terminal) or from stdin (a pipe), save it 0600."""
    if env.stdin_isatty:
        import getpass

        try:
            value = getpass.getpass("API key (input hidden): ")
        except EOFError:
            value = ""
    else:
        first = env.stdin.read(65536).decode("utf-8", "replace").splitlines()[0:1]
        value = first[0] if first else ""
    try:
        where = apikey.save_key(value)
    except OSError as exc:
        raise ToolpruneError(f"cannot write the key file: {exc.strerror or exc}") from None
    env.say(f"toolprune: saved the API key to {where} (mode 0600); TOOLPRUNE_API_KEY, when set, takes precedence")
    return ExitCode.OK


def unset_key(env: Environment) -> int:
    where = apikey.key_path()
    try:
        where.unlink()
    except FileNotFoundError:
        return ExitCode.OK
    except OSError as exc:
        raise ToolpruneError(f"cannot remove the key file {where}: {exc.strerror or exc}") from None
    env.say(f"toolprune: removed the key file {where}")
    return ExitCode.OK


PROBE_REQUEST = "How do I reset my password?"
PROBE_RELEVANT = (
    "To reset your password, open Settings, choose Account, then Reset password. We email you a link "
    "that is valid for 30 minutes; follow it and pick a new password of at least 12 characters."
)
PROBE_UNRELATED = (
    "Our office is closed on public holidays. The cafeteria on the second floor serves lunch from noon "
    "until two, and visitors can park in the garage behind the building."
)


def scorer_test(env: Environment, provider: str | None, base_url: str | None, api_path: str | None,
                model: str | None, timeout: float) -> int:
    """Send a two-paragraph probe to the configured System One server and report."""
    from toolprune.core.scorer import ScorerError, ScoringRequest, ScoringTimeout
    from toolprune.scorers import get_scorer
    from toolprune.settings import parse_timeout

    timeout = parse_timeout(timeout)
    loaded = env.environ.config
    if loaded.invalid:
        raise UsageError(f"the config file {loaded.path} is invalid ({loaded.invalid}): the remote scorer is disabled")
    scorer = get_scorer("systemone", provider=provider, base_url=base_url, path=api_path, model=model)
    endpoint = scorer.endpoint  # type: ignore[attr-defined]
    env.say(f"toolprune: sending a two-paragraph probe to {endpoint.url} (model {endpoint.model})")
    request = ScoringRequest(PROBE_REQUEST, [PROBE_RELEVANT, PROBE_UNRELATED], deadline=time.monotonic() + timeout)
    started = time.monotonic()
    try:
        relevant, unrelated = scorer.score(request, [0, 1])
    except ScorerError as exc:
        env.say(f"toolprune: scorer test failed: {getattr(exc, 'message', exc)}")
        return ExitCode.NOT_RETURNED
    except ScoringTimeout:
        env.say(f"toolprune: scorer test failed: no answer from {endpoint.origin} within {timeout:g} s")
        return ExitCode.NOT_RETURNED
    finally:
        scorer.close()
    elapsed = (time.monotonic() - started) * 1000
    usage = scorer.usage() or {}

    def show(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    lines = [
        f"endpoint:  {endpoint.url}",
        f"model:     {usage.get('model') or '-'} (asked for {endpoint.model})",
        f"latency:   {elapsed:.0f} ms ({usage.get('calls')} request{'s' if usage.get('calls') != 1 else ''})",
        f"tokens:    {usage.get('tokens') if usage.get('tokens') is not None else '-'}",
        f"questions: {usage.get('questions')}",
        f"scores:    relevant paragraph {show(relevant)}, unrelated paragraph {show(unrelated)}",
    ]
    env.write_output(("\n".join(lines) + "\n").encode())
    if relevant is None or unrelated is None:
        env.say("toolprune: scorer test: the server did not score both paragraphs")
        return ExitCode.NOT_RETURNED
    if relevant <= unrelated:
        env.say("toolprune: scorer test: the server does not tell the relevant paragraph from the unrelated one")
        return ExitCode.NOT_RETURNED
    return ExitCode.OK
