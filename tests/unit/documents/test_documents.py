"""Files, folders and globs to documents; each format's text through its reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring.documents import UnreadableDocumentError, expand_paths, read_document


def write_docx(path: Path, paragraphs: list[str], table: list[list[str]] | None = None) -> None:
    """A real .docx written by python-docx."""
    from docx import Document

    document = Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                grid.cell(r, c).text = cell
    document.save(str(path))


def write_pdf(path: Path, lines: list[str]) -> None:
    """A minimal one-page PDF with a text layer, written byte by byte (offsets computed)."""
    stream = (
        "BT /F1 12 Tf 72 720 Td 14 TL "
        + " ".join(
            "(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj T*"
            for line in lines
        )
        + " ET"
    )
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    path.write_bytes(out)


def test_each_format_yields_its_visible_text(tmp_path: Path) -> None:
    """txt verbatim; md and html without markup (headings as ``#`` lines); docx paragraphs and
    cells; pdf text."""
    (tmp_path / "a.txt").write_text("Plain text here.")
    (tmp_path / "b.md").write_text("# Title\n\nSome *markdown*.")
    (tmp_path / "c.html").write_text(
        "<html><head><style>p{}</style><script>track()</script></head>"
        "<body><h1>Heading</h1><p>First <b>para</b>.</p><p>Second.</p></body></html>"
    )
    write_docx(tmp_path / "d.docx", ["Word paragraph one.", "Two."], [["k", "v"]])
    write_pdf(tmp_path / "e.pdf", ["Ada Lovelace wrote notes.", "Page text."])
    texts = {path.name: read_document(path).text for path in expand_paths([str(tmp_path)])}
    assert texts["a.txt"] == "Plain text here."
    assert texts["b.md"] == "# Title\n\nSome markdown."
    assert texts["c.html"] == "# Heading\n\nFirst para.\n\nSecond."
    assert texts["d.docx"] == "Word paragraph one.\n\nTwo.\n\nk | v"
    assert "Ada Lovelace wrote notes." in texts["e.pdf"]
    assert "track" not in texts["c.html"]


def test_folders_are_walked_and_globs_expanded_without_hidden_or_unsupported_files(
    tmp_path: Path,
) -> None:
    """Recursion, glob patterns and de-duplication; hidden folders and other types skipped."""
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "top.md").write_text("x")
    (tmp_path / "sub" / "deep.txt").write_text("y")
    (tmp_path / ".git" / "config.txt").write_text("z")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    walked = expand_paths([str(tmp_path), str(tmp_path / "top.md")])
    assert [p.relative_to(tmp_path).as_posix() for p in walked] == ["sub/deep.txt", "top.md"]
    globbed = expand_paths([str(tmp_path / "**" / "*.txt")])
    assert [p.name for p in globbed] == ["deep.txt"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("missing.md", "no such file or folder"), ("nothing-*.md", "matches no supported file")],
)
def test_an_argument_that_names_nothing_is_refused(
    tmp_path: Path, name: str, expected: str
) -> None:
    """A typo must not ingest nothing silently."""
    with pytest.raises(UnreadableDocumentError, match=expected):
        expand_paths([str(tmp_path / name)])


def test_an_unsupported_file_named_explicitly_is_refused(tmp_path: Path) -> None:
    """Naming a file we cannot read is an error that lists what is supported."""
    (tmp_path / "sheet.xlsx").write_bytes(b"PK")
    with pytest.raises(
        UnreadableDocumentError, match=r"unsupported file type '.xlsx'; supported: .txt"
    ):
        expand_paths([str(tmp_path / "sheet.xlsx")])


def test_a_corrupt_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    """A broken PDF or non-UTF-8 text fails with the file's name, not a library traceback."""
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 nonsense")
    (tmp_path / "latin.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(UnreadableDocumentError, match=r"broken\.pdf"):
        read_document(tmp_path / "broken.pdf")
    with pytest.raises(UnreadableDocumentError, match=r"latin\.txt is not UTF-8"):
        read_document(tmp_path / "latin.txt")
