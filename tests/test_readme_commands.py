"""The README's commands run as written.

Every `python -m transpiler ...` and `python examples/...` command of README.md (in its shell
blocks, after a `$ ` prompt or alone, and in its prose) runs in a process of its own, as from the
repository's root, exits with 0 and prints what the README shows under it. Commands too slow
for this file are listed with the test that runs them; commands that need an extra are skipped
without it.
"""

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
SHELL_BLOCKS = {"bash", "sh", "shell", "console", ""}
COMMAND = re.compile(r"python (-m transpiler |examples/)\S")

# Commands that take minutes, and the tests that run them (or their quick forms).
RUN_ELSEWHERE = {
    "python examples/tour.py --quick": "tests/test_examples.py",
    "python examples/benchmark.py": "tests/test_benchmark_script.py",
    "python examples/benchmark.py --scaling": "tests/test_benchmark_script.py",
    "python examples/end_to_end.py": "tests/test_examples.py",
}


def read_readme() -> str:
    with open(README, encoding="utf-8") as handle:
        return handle.read()


def shell_lines(text: str):
    """(line, the lines after it) for every line of the README's shell blocks."""
    for info, body in FENCE.findall(text):
        if info in SHELL_BLOCKS:
            lines = body.splitlines()
            for index, line in enumerate(lines):
                yield line, lines[index + 1:]


def readme_commands(text: str) -> dict:
    """Each command -> the output the README shows under it (None when it shows none)."""
    commands = {}
    for line, rest in shell_lines(text):
        prompted = line.startswith("$ ")
        for part in line.removeprefix("$ ").split("&&"):
            part = part.strip()
            if COMMAND.match(part):
                shown = None
                if prompted:
                    end = next((i for i, after in enumerate(rest) if after.startswith("$ ")),
                               len(rest))
                    shown = rest[:end]
                commands[part] = shown
    for span in re.findall(r"`([^`]+)`", FENCE.sub("", text)):
        span = " ".join(span.split())  # a command wrapped over two lines of prose
        if COMMAND.match(span):
            commands.setdefault(span, None)
    return commands


COMMANDS = readme_commands(read_readme())
TO_RUN = sorted(set(COMMANDS) - set(RUN_ELSEWHERE))


def missing_requirement(command: str) -> str | None:
    """Why ``command`` cannot run here (an optional extra that is not installed), or None."""
    needs = []
    if "--onnx" in command:
        needs.append("onnx")
    if "--jit" in command:
        needs.append("numba")
    if "examples/deploy.py" in command:
        needs += ["onnx", "onnxruntime"]
    if "examples/deploy_jax.py" in command:
        needs.append("jax")
    for module in needs:
        if importlib.util.find_spec(module) is None:
            return f"needs {module}"
    if ("--svg" in command or "--png" in command) and shutil.which("dot") is None:
        return "needs Graphviz"
    return None


@pytest.fixture(scope="module")
def started(request, tmp_path_factory):
    """Starts, side by side, every command a selected test of this module runs: command ->
    (process, its directory). Each runs in a directory of its own that holds a link to
    examples/, so relative paths work as from the repository's root and the files a command
    writes stay out of the checkout; PYTHONPATH makes them run this checkout's packages."""
    selected = {item.callspec.params["command"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")
                and "command" in item.callspec.params}
    python_path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    environment = dict(os.environ, XDG_CACHE_HOME=str(tmp_path_factory.mktemp("cache")),
                       PYTHONPATH=python_path)
    processes = {}
    for command in sorted(selected):
        if missing_requirement(command):
            continue
        directory = tmp_path_factory.mktemp("readme")
        os.symlink(os.path.join(ROOT, "examples"), directory / "examples")
        argv = shlex.split(command)
        assert argv[0] == "python", command
        processes[command] = (subprocess.Popen(
            [sys.executable, *argv[1:]], cwd=directory, env=environment, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE), directory)
    yield processes
    for process, _ in processes.values():
        if process.poll() is None:
            process.kill()
            process.communicate()


def shown_line_pattern(line: str) -> re.Pattern:
    """A line of output the README shows, as a pattern: node numbers (`%27`, `%27.0`) and runs of
    spaces may differ, and `...` stands for any text (a path that depends on the checkout)."""
    words = " ".join(re.sub(r"%\d+(\.\d+)?", "%N", line).split())
    return re.compile(".*".join(re.escape(part) for part in words.split("...")))


def test_the_readme_has_commands_to_run():
    shown = [command for command, output in COMMANDS.items() if output]
    assert len(shown) >= 2 and all("-m transpiler" in command for command in shown), COMMANDS
    assert not any("step.py" in command or "collatz.py" in command for command in COMMANDS)


def test_commands_run_elsewhere_are_still_in_the_readme_and_tested():
    for command, test_file in RUN_ELSEWHERE.items():
        assert command in COMMANDS, f"{command!r} is no longer in the README: drop it here"
        with open(os.path.join(ROOT, test_file), encoding="utf-8") as handle:
            script = os.path.splitext(os.path.basename(command.split()[1]))[0]
            assert f'"{script}' in handle.read(), (command, test_file)


@pytest.mark.parametrize("command", TO_RUN)
def test_readme_command_runs_as_written(command, started):
    reason = missing_requirement(command)
    if reason:
        pytest.skip(reason)
    process, directory = started[command]
    try:
        stdout, stderr = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr and "Warning" not in stderr, stderr
    assert stdout.strip(), f"{command} printed nothing"
    actual = [" ".join(re.sub(r"%\d+(\.\d+)?", "%N", line).split())
              for line in stdout.splitlines()]
    missing = [line for line in COMMANDS[command] or [] if line.strip()
               and not any(shown_line_pattern(line).fullmatch(out) for out in actual)]
    assert not missing, f"the README shows lines that {command} does not print:\n" + \
        "\n".join(missing) + f"\n--- it printed:\n{stdout}"
    argv = shlex.split(command)
    for option in ("--onnx", "--dot", "--svg", "--png"):
        if option in argv:
            assert (directory / argv[argv.index(option) + 1]).stat().st_size > 0


def test_the_readme_says_how_long_the_tests_take_and_how_to_install_for_editing():
    text = read_readme()
    assert re.search(r"The tests take about \d+ minutes on a 2-core machine", text)
    commands = [line for line, _ in shell_lines(text)]
    # the two commands a newcomer runs first, and the install for those who edit the code
    assert ("python -m venv .venv && . .venv/bin/activate && pip install . && "
            "python examples/tour.py --quick") in commands
    assert ('python -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0 '
            '".[test,jit,onnx,jax,torch]" && python -m pytest') in commands
    assert 'pip install -e ".[test,jit,onnx,jax,torch]"' in commands
    # every extra the README installs exists
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        extras = set(tomllib.load(handle)["project"]["optional-dependencies"])
    named = set()
    for group in re.findall(r'pip install (?:-e )?(?:torch==[\d.]+ )?"?[.\w-]*\[([\w,]+)\]', text):
        named.update(group.split(","))
    assert named and named <= extras, named - extras
