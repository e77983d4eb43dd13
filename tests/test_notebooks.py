"""Every notebook in notebooks/ runs top to bottom, and is committed without outputs.

Each notebook is executed by nbclient in a fresh Python kernel (the
interpreter running the tests), with the notebooks folder as working
directory. Notebook 01 trains into a temporary folder with its default tiny
run (``TDGAMMON_NOTEBOOK_GAMES`` unset unless the caller sets it). Skipped
when nbclient / ipykernel / matplotlib are not installed (the ``dev`` extra
has them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
TIMEOUT = 300
"""Seconds any one cell may take."""


def test_there_are_notebooks():
    names = [path.name for path in NOTEBOOKS]
    assert names == [
        "01_train_a_model.ipynb",
        "02_analyse_positions.ipynb",
        "03_cube_theory.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.name}: clear the outputs before committing"
            )
            assert "def " not in cell.source and "class " not in cell.source, (
                f"{path.name}: define functions in the package, not in a notebook"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    monkeypatch.setenv("TDGAMMON_NOTEBOOK_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        pytest.skip("no python3 kernel")
    if spec.argv[0] not in (sys.executable, "python", "python3"):
        pytest.skip(f"the python3 kernel runs {spec.argv[0]}, not this interpreter")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors
    images = sum(
        1
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {}) or "image/svg+xml" in output.get("data", {})
    )
    assert images >= 2, f"{path.name} drew {images} pictures"
