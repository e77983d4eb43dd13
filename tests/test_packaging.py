"""The project installs under one name, ``tdgammon``, and works from the wheel alone.

pyproject.toml maps the repository's folders engine/, models/ and train/ to
``tdgammon.engine``, ``tdgammon.models`` and ``tdgammon.train``. These tests build
the wheel (no network: ``--no-build-isolation``, ``--no-index``), read it, install
it into a fresh virtual environment and run the installed ``tdgammon`` from a
directory outside the repository, so nothing can come from the checkout.

The fresh environment sees this environment's dependencies (numpy, torch) through
a ``.pth`` file holding this site-packages' path: a path line only extends
sys.path, the ``.pth`` files *in* that directory are not processed, so the
editable install's finder (``__editable__.tdgammon-*.pth``) stays out. The test
checks that too.

The source is copied to a temporary directory before building: setuptools writes
build/ and *.egg-info next to pyproject.toml, and the checkout is shared.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
NAME, VERSION = PROJECT["name"], PROJECT["version"]
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
# repository folder -> its package in the wheel
FOLDERS = {"engine": "tdgammon/engine", "models": "tdgammon/models", "train": "tdgammon/train"}
FOLDERS["tdgammon"] = "tdgammon"
DATA_FILES = [
    "tdgammon/engine/players/pubeval_weights.json",
    "tdgammon/engine/cube/met_kazaross_xg2.json",
    "tdgammon/engine/display/sample_real.mat",
]
OUTER_PTH = "outer-site-packages.pth"
HINT_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
CUBE_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*")


def run(args, cwd, env=None, timeout=120) -> str:
    """Run a command; fail the test with its output when it fails."""
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, args))} exited {done.returncode}\n"
        f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    )
    return done.stdout


def run_all(commands: dict[str, list], cwd, env, timeout=120) -> dict[str, str]:
    """Run commands side by side (each imports torch: seconds); fail on any failure."""
    started = {
        name: subprocess.Popen(
            [str(a) for a in args],
            cwd=cwd,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name, args in commands.items()
    }
    out, failures = {}, []
    for name, process in started.items():
        stdout, stderr = process.communicate(timeout=timeout)
        out[name] = stdout
        if process.returncode != 0:
            failures.append(
                f"{name}: {' '.join(map(str, commands[name]))} exited {process.returncode}\n"
                f"stdout:\n{stdout[-3000:]}\nstderr:\n{stderr[-3000:]}"
            )
    assert not failures, "\n\n".join(failures)
    return out


def source_files() -> list[str]:
    """Every file of the repository folders that the wheel must ship, as wheel paths."""
    out = []
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*")):
            parts = path.relative_to(ROOT).parts
            skipped = "__pycache__" in parts or any(part.startswith(".") for part in parts)
            if path.is_file() and not skipped and path.suffix != ".pyc":
                out.append(f"{package}/{path.relative_to(ROOT / folder).as_posix()}")
    return out


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of what the build reads, so the shared checkout gets no build/ or egg-info."""
    copy = tmp_path_factory.mktemp("source")
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, copy / folder, ignore=IGNORE)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, copy / name)
    return copy


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", out, source], cwd=out)
    (built,) = out.glob("*.whl")
    assert built.name == f"{NAME}-{VERSION}-py3-none-any.whl"
    return built


@pytest.fixture(scope="module")
def names(wheel) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv with only the wheel installed, and this venv's dependencies visible."""
    import pip

    major, minor = (int(part) for part in pip.__version__.split(".")[:2])
    assert (major, minor) >= (22, 3), f"pip {pip.__version__} has no --python (22.3+)"
    root = tmp_path_factory.mktemp("fresh") / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", root], cwd=root.parent)
    python = root / "bin" / "python"
    run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", python,
         "install", "--no-deps", "--no-index", wheel],
        cwd=root.parent,
    )  # fmt: skip
    # Only after installing: with the outer site-packages visible, pip would
    # find the editable tdgammon there and call the requirement satisfied.
    outer = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site_packages(root) / OUTER_PTH).write_text("".join(f"{path}\n" for path in outer))
    return root


def site_packages(root: Path) -> Path:
    (path,) = (root / "lib").glob("python3*/site-packages")
    return path


def clean_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.pop("VIRTUAL_ENV", None)
    env["PYTHONNOUSERSITE"] = "1"
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_wheel_holds_only_the_tdgammon_package(names):
    tops = {name.split("/")[0] + ("/" if "/" in name else "") for name in names}
    assert tops == {"tdgammon/", f"{DIST_INFO}/"}, sorted(tops)


def test_wheel_ships_models_data_and_every_module(names):
    models = sorted((ROOT / "models").glob("*.pt"))
    assert models, "no shipped models in models/"
    expected = [f"tdgammon/models/{model.name}" for model in models] + DATA_FILES
    expected += source_files()  # every module (a subpackage missing from `packages` shows here)
    missing = sorted(set(expected) - set(names))
    assert not missing, f"the wheel lacks {missing}: see [tool.setuptools] in pyproject.toml"
    assert "tdgammon/models/tdgammon-tesauro80.pt" in names
    assert "tdgammon/__main__.py" in names
    assert "tdgammon/__init__.py" not in names  # a namespace package, on purpose


def test_wheel_entry_point(wheel):
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(f"{DIST_INFO}/entry_points.txt").decode()
    assert re.search(r"^tdgammon = tdgammon\.engine\.interfaces\.cli:main$", text, re.M), text


def test_fresh_venv_holds_only_tdgammon(venv):
    site = site_packages(venv)
    assert sorted(p.name for p in site.iterdir()) == sorted(["tdgammon", DIST_INFO, OUTER_PTH])
    record = (site / DIST_INFO / "RECORD").read_text().splitlines()
    tops = {line.split(",")[0].split("/")[0] for line in record}
    assert tops == {"tdgammon", DIST_INFO, ".."}, sorted(tops)  # "..": ../../bin/tdgammon
    assert (venv / "bin" / "tdgammon").is_file()


CHECK = textwrap.dedent(
    """
    import sys, importlib.util
    import tdgammon, tdgammon.engine, tdgammon.engine.interfaces.cli, tdgammon.models
    import numpy  # a dependency, from the outer site-packages (torch: the hint below)
    site = sys.argv[1]
    assert list(tdgammon.__path__) == [site + "/tdgammon"], list(tdgammon.__path__)
    assert tdgammon.engine.__file__.startswith(site), tdgammon.engine.__file__
    bad = {n: getattr(m, "__file__", None) for n, m in sys.modules.items()
           if n.split(".")[0] in ("tdgammon", "engine", "models", "train")
           and not (getattr(m, "__file__", None) or site).startswith(site)}
    assert not bad, bad
    assert tdgammon.models.shipped_model().is_file()
    assert str(tdgammon.models.shipped_model()).startswith(site)
    # the outer site-packages is on sys.path, but its .pth files were not run:
    assert sys.argv[2] in sys.path
    assert not [n for n in sys.modules if "editable" in n], "editable finder loaded"
    assert not [f for f in sys.meta_path if "editable" in repr(f).lower()], sys.meta_path
    assert importlib.util.find_spec("engine") is None, "the checkout's engine/ is importable"
    print(tdgammon.engine.__file__)
    """
)


def test_installed_tdgammon_runs_outside_the_repository(venv, tmp_path):
    env, bin_dir = clean_env(venv), venv / "bin"
    site = str(site_packages(venv).resolve())
    outer = sysconfig.get_paths()["purelib"]
    commands = {
        "check": [bin_dir / "python", "-c", CHECK, site, outer],
        "hint": [bin_dir / "tdgammon", "hint", HINT_XGID, "--plies", "0"],
        "cube": [bin_dir / "tdgammon", "cube", CUBE_XGID, "--plies", "0"],
        "help": [bin_dir / "python", "-m", "tdgammon", "--help"],
    }
    out = run_all(commands, cwd=tmp_path, env=env)

    assert Path(out["check"].strip()).resolve().is_relative_to(venv.resolve())
    assert not out["check"].strip().startswith(str(ROOT))
    assert re.search(r"^\s*1\. 0-ply \S.*equity [+-]\d", out["hint"], re.M), out["hint"]
    assert "13/8" in out["hint"], out["hint"]
    verdict = r"Cube decision of the player on roll, 0-ply: (No double|No redouble|Double|Too good)"
    assert re.search(verdict, out["cube"]), out["cube"]
    assert "usage: tdgammon" in out["help"] and "hint" in out["help"], out["help"]


def test_pip_install_dot_installs_one_top_level_name(source, tmp_path):
    """``pip install .`` (into a target folder): the names it puts in site-packages."""
    target = tmp_path / "target"
    run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "install", "--no-deps",
         "--no-index", "--no-build-isolation", "--target", target, "."],
        cwd=source,
    )  # fmt: skip
    assert sorted(p.name for p in target.iterdir()) == sorted(["bin", "tdgammon", DIST_INFO])
    assert (target / "tdgammon/models/tdgammon-tesauro80.pt").is_file()
