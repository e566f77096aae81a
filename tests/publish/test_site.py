"""The offline explorer (`site/`) of the shared small release (seeds + a Wahapedia slice): its pages, their
escaping, and the pages in headless Chromium from file:// (screenshots in the test's output folder)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from pipeline.publish.site.build import SITE_DIR, write_site
from pipeline.publish.site.safe import content_security_policy, unit_path
from tests.publish.browser import chromium_or_skip
from tests.publish.releases import Published

pytestmark = pytest.mark.slow  # the shared small release takes about a minute to build

#: A name that runs script if any page puts it in the markup unescaped (or evaluates it).
INJECTED = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">"\'&'
#: Every URL in a page that is not an SVG namespace: a link, a src, a url(...).
_URL = re.compile(r"(?:href|src)=\"([^\"]*)\"|url\(([^)]*)\)")


@pytest.fixture(scope="module")
def site(good_release: Published) -> Path:
    return good_release.release / SITE_DIR


@pytest.fixture(scope="module")
def units(good_release: Published) -> pl.DataFrame:
    return pl.read_parquet(good_release.release / "units.parquet")


def _frames(release: Path) -> dict[str, pl.DataFrame]:
    return {p.stem: pl.read_parquet(p) for p in release.glob("*.parquet") if p.stem != "damage_matrix"}


@pytest.fixture(scope="module")
def injected_site(good_release: Published, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The release's site rebuilt with the first unit (by name) renamed to INJECTED; its unit id."""
    frames = _frames(good_release.release)
    unit_id = frames["units"].sort("name")["unit_id"][0]
    renamed = pl.when(pl.col("unit_id") == unit_id).then(pl.lit(INJECTED)).otherwise(pl.col("name")).alias("name")
    frames["units"] = frames["units"].with_columns(renamed)
    target = tmp_path_factory.mktemp("injected")
    write_site(frames, target, good_release.version)
    return target / SITE_DIR, unit_id


def test_every_unit_and_faction_has_a_page(site: Path, units: pl.DataFrame) -> None:
    for unit_id, name in units.select("unit_id", "name").iter_rows():
        page = (site / unit_path(unit_id)).read_text()
        assert f'<h1 id="unit-name">{_escaped(name)}</h1>' in page
    index = (site / "index.html").read_text()
    for faction in units["faction"].unique():
        assert f">{_escaped(faction)}</a>" in index
    assert (site / "findings.html").is_file()


def _escaped(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;").replace("'", "&#39;")
    )


def _pages(site: Path) -> Iterator[Path]:
    return iter(sorted(site.rglob("*.html")))


def test_pages_link_nowhere_but_the_release(site: Path) -> None:
    """Every href/src is relative and stays inside the release (the quality page is its neighbour)."""
    for page in _pages(site):
        text = page.read_text()
        assert f'content="{_escaped(content_security_policy())}"' in text, page
        for match in _URL.finditer(text):
            url = match.group(1) or match.group(2)
            assert "://" not in url and not url.startswith(("//", "data:", "javascript:")), (page, url)
            if not url.startswith("#"):
                target = (page.parent / url.split("#")[0]).resolve()
                assert target.is_relative_to(site.parent.resolve()), (page, url)


def test_unit_page_shows_a_known_unit(site: Path, units: pl.DataFrame) -> None:
    """Lord Invocatus: 110 points for one model (Wahapedia's Datasheets_models_cost.csv, fresher than the seed
    page's 140), both points rows' sources listed, his bladed horn drawn in the heatmap."""
    unit_id = units.filter(pl.col("name") == "Lord Invocatus")["unit_id"][0]
    page = (site / unit_path(unit_id)).read_text()
    assert '<td class="n">1</td><td class="n">110</td><td>1 Lord Invocatus</td>' in page
    assert "pages/003_39e7b05ac4966267.txt:1" in page
    assert page.count('<svg class="heat"') >= 1
    heatmaps = page.split("<h2>Expected damage")[1].split("<h2>")[0]
    assert "Bladed horn (melee)" in heatmaps and "Coward&#39;s Bane (melee)" in heatmaps


def test_injected_name_is_text_in_every_page(injected_site: tuple[Path, str]) -> None:
    folder, unit_id = injected_site
    for page in _pages(folder):
        text = page.read_text()
        assert "<script>window.__pwned" not in text and "<img src=x" not in text, page
    unit_page = (folder / unit_path(unit_id)).read_text()
    assert _escaped(INJECTED) in unit_page
    assert "\\u003cscript\\u003ewindow.__pwned" in (folder / "index.html").read_text()


# --- in the browser -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    binary = chromium_or_skip()
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser test skipped: playwright not installed")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(binary), args=["--no-sandbox"])
        yield launched
        launched.close()


class Visit:
    """One page load: console errors, page errors, dialogs and every request URL that is not file://."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.remote: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", self._dialog)
        self.page.route("**/*", self._route)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _dialog(self, dialog: Any) -> None:
        self.errors.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    def _route(self, route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.remote.append(route.request.url)
            route.abort()

    def open(self, path: Path) -> Any:
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")
        return self.page

    def clean(self) -> None:
        assert self.errors == [] and self.remote == []
        self.page.close()


def _shot(page: Any, name: str) -> None:
    out = Path(__file__).resolve().parents[2] / "test-output" / "site"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)


def test_index_search_finds_a_unit(browser: Any, site: Path) -> None:
    visit = Visit(browser)
    page = visit.open(site / "index.html")
    page.fill("#search", "invocatus")
    link = page.locator("#results a").first
    assert link.text_content() == "Lord Invocatus"
    _shot(page, "index-search")
    link.click()
    page.wait_for_load_state("load")
    assert page.locator("#unit-name").text_content() == "Lord Invocatus"
    visit.clean()


def test_unit_and_findings_pages_load_clean(browser: Any, site: Path, units: pl.DataFrame) -> None:
    unit_id = units.filter(pl.col("name") == "Lord Invocatus")["unit_id"][0]
    for name, path in (("unit", site / unit_path(unit_id)), ("findings", site / "findings.html")):
        visit = Visit(browser)
        page = visit.open(path)
        assert page.locator("h1").first.text_content()
        _shot(page, name)
        visit.clean()


def test_injected_name_does_not_run(browser: Any, injected_site: tuple[Path, str]) -> None:
    folder, unit_id = injected_site
    visit = Visit(browser)
    page = visit.open(folder / unit_path(unit_id))
    assert page.locator("#unit-name").text_content() == INJECTED
    assert page.evaluate("window.__pwned") is None
    _shot(page, "injected-unit")
    page = visit.open(folder / "index.html")
    page.fill("#search", "pwned")
    assert page.locator("#results a").first.text_content() == INJECTED
    assert page.evaluate("window.__pwned") is None
    visit.clean()


def test_matchup_pages_only_when_the_release_has_unit_matchups(
    good_release: Published, site: Path, tmp_path: Path
) -> None:
    """No `unit_matchups` in this release: no matchups folder, and the unit pages say so. With a built table
    (the contract's columns), the attacker gets a page listing its target with the slain distribution."""
    assert not (site / "matchups").exists()
    frames = _frames(good_release.release)
    attacker, target = frames["units"].sort("name")["unit_id"][:2]
    frames["unit_matchups"] = pl.DataFrame([{
        "attacker_unit_id": attacker, "attacker_models": 1, "target_unit_id": target, "target_models": 5,
        "scenario": "default", "phase": "shooting", "models_slain": 1.25, "p_any": 0.75, "p_wipe": 0.0,
        "slain_dist": [0.25, 0.4, 0.35],
    }])  # fmt: skip
    write_site(frames, tmp_path, good_release.version)
    page = (tmp_path / SITE_DIR / "matchups" / unit_path(attacker).removeprefix("units/")).read_text()
    assert page.count('<rect class="bar"') == 3 and '<td class="n">1.25</td>' in page
    assert f'href="../../{unit_path(target)}"' in page
    unit_page = (tmp_path / SITE_DIR / unit_path(attacker)).read_text()
    assert "Models slain against other units" in unit_page


def test_unit_vs_reference_draws_the_default_scenario_only() -> None:
    """Two scenarios in the table, one map on the page: the default one, each cell where it belongs."""
    from pipeline.publish.site.matchups import VsReference, vs_reference_maps

    rows = [
        {"unit_id": "unit:x:a", "models": m, "target_unit_id": "ref:geq", "target_models": 10, "phase": "shooting",
         "scenario": scenario, "models_slain": slain}
        for m, scenario, slain in [(5, "default", 1.25), (10, "default", 2.5), (5, "cover", 9.75)]
    ]  # fmt: skip
    table = VsReference(pl.DataFrame(rows))
    maps = vs_reference_maps(table, "unit:x:a", {"ref:geq": "GEQ"})
    assert maps is not None and len(maps) == 1
    svg = str(maps[0])
    assert "models slain, default" in svg and "cover" not in svg
    assert "GEQ x10" in svg and "5 models, shooting" in svg and "10 models, shooting" in svg
    assert "1.25" in svg and "2.5" in svg and "9.75" not in svg
    assert vs_reference_maps(table, "unit:x:other", {}) == []
    only_cover = VsReference(pl.DataFrame([{**rows[2], "unit_id": "unit:x:b"}, *rows]))
    assert "unit:x:b" in only_cover and "unit:x:other" not in only_cover  # its rows are in another scenario
    assert vs_reference_maps(only_cover, "unit:x:b", {}) == []
    assert vs_reference_maps(None, "unit:x:a", {}) is None


def test_unit_vs_reference_cells_sit_in_their_row_and_column() -> None:
    """Rows by model count (5 before 10), columns by target label: each value lands in its own cell,
    whatever order the table lists them in."""
    from pipeline.publish.site.matchups import VsReference, vs_reference_maps

    cells = [(10, "ref:meq", 4.0), (5, "ref:geq", 1.0), (10, "ref:geq", 3.0), (5, "ref:meq", 2.0)]
    table = VsReference(pl.DataFrame([
        {"unit_id": "unit:x:a", "models": m, "target_unit_id": target, "target_models": 5, "phase": "fight",
         "scenario": "default", "models_slain": slain}
        for m, target, slain in cells
    ]))  # fmt: skip
    maps = vs_reference_maps(table, "unit:x:a", {"ref:geq": "GEQ", "ref:meq": "MEQ"})
    assert maps is not None and len(maps) == 1
    svg = str(maps[0])
    assert svg.index("GEQ x5") < svg.index("MEQ x5")
    assert svg.index("5 models, fight") < svg.index("10 models, fight")
    shown = re.findall(r'<text x="\d+">([0-9.]+)</text>', svg)
    assert shown == ["1.00", "2.00", "3.00", "4.00"]  # row 5 models: GEQ, MEQ; row 10 models: GEQ, MEQ


def _damage_frame(rows: list[tuple[str, str, str, str, float | None]]) -> dict[str, pl.DataFrame]:
    columns = ("unit_id", "weapon_id", "scenario", "profile_id", "damage")
    frame = pl.DataFrame(rows, schema=dict.fromkeys(columns, pl.String) | {"damage": pl.Float64}, orient="row")
    return {"damage_vs_reference": frame.with_columns(golden=pl.col("unit_id") != "u:copy")}


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (  # every weapon has every profile: read as a grid; a NULL damage stays None, a copy's row is left out
            [("u:b", "w2", "default", "ref:b", 2.0), ("u:b", "w2", "default", "ref:a", None),
             ("u:a", "w1", "charged", "ref:b", 4.0), ("u:a", "w1", "charged", "ref:a", 3.0),
             ("u:copy", "w1", "charged", "ref:a", 9.0), ("u:a", "w1", "default", "ref:a", 1.0),
             ("u:a", "w1", "default", "ref:b", 1.5)],
            {"u:a": {"w1": {"charged": [3.0, 4.0], "default": [1.0, 1.5]}}, "u:b": {"w2": {"default": [None, 2.0]}}},
        ),
        (  # a weapon without a row for `ref:b`: grouped, the missing value None
            [("u:a", "w1", "default", "ref:a", 1.0), ("u:a", "w2", "default", "ref:a", 5.0),
             ("u:a", "w2", "default", "ref:b", 6.0), ("u:a", "w2", "default", "ref:x", 7.0)],
            {"u:a": {"w1": {"default": [1.0, None]}, "w2": {"default": [5.0, 6.0]}}},
        ),
    ],
)  # fmt: skip
def test_unit_damage_maps_read_each_weapon_against_the_profiles_in_order(
    rows: list[tuple[str, str, str, str, float | None]], expected: dict[str, Any]
) -> None:
    from pipeline.publish.site.pages import _damage

    found = _damage(_damage_frame(rows), ["ref:a", "ref:b"])
    assert found == expected
    assert list(found) == sorted(expected) and list(found["u:a"]["w1"]) == sorted(expected["u:a"]["w1"])
