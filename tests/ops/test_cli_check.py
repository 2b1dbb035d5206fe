from __future__ import annotations

from tests.ops.cli_check import check, invocations


def test_existing_commands_and_options_pass() -> None:
    assert check(["play", "--redis", "redis://x", "--players", "4", "--quiet"]) == ([], [])
    assert check(["bench", "reducers", "--matches", "3"]) == ([], [])


def test_unknown_commands_options_and_choices_are_problems() -> None:
    assert check(["fly"])[0] == ["no subcommand 'fly'"]
    assert check(["play", "--turbo"])[0] == ["'play' has no option --turbo"]
    assert "not one of" in check(["bench", "sideways"])[0][0]


def test_service_commands_and_nested_subcommands_are_checked() -> None:
    assert check(["worker", "--redis", "redis://r"]) == ([], [])
    assert check(["bench", "pipeline", "--workers", "1,2"]) == ([], [])
    assert check(["bench", "pipeline", "--turbo"])[0] == ["'bench pipeline' has no option --turbo"]


def test_invocations_from_exec_form_and_shell_scripts() -> None:
    assert invocations(["airship", "worker"], {}) == [["worker"]]
    script = 'while true; do\n  airship play --redis "$$URL" --quiet && touch /tmp/x\n  sleep 1\ndone\n'
    assert invocations(["sh", "-c", script], {"URL": "redis://r"}) == [
        ["play", "--redis", "redis://r", "--quiet"]]
    assert invocations(["redis-server"], {}) == []
