"""Files, folders and globs to documents; each format's text through its reader."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from redstring.documents import UnreadableDocumentError, read_document, walk


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
    texts = {path.name: read_document(path).text for path in walk([str(tmp_path)]).files}
    assert texts["a.txt"] == "Plain text here."
    assert texts["b.md"] == "# Title\n\nSome markdown."
    assert texts["c.html"] == "# Heading\n\nFirst para.\n\nSecond."
    assert texts["d.docx"] == "Word paragraph one.\n\nTwo.\n\nk | v"
    assert "Ada Lovelace wrote notes." in texts["e.pdf"]
    assert "track" not in texts["c.html"]


def test_folders_are_walked_and_globs_expanded_without_hidden_entries(tmp_path: Path) -> None:
    """Recursion, glob patterns and de-duplication; hidden folders are not walked, and a
    file of another type is listed as skipped with its reason, not dropped."""
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "top.md").write_text("x")
    (tmp_path / "sub" / "deep.txt").write_text("y")
    (tmp_path / ".git" / "config.txt").write_text("z")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    walked = walk([str(tmp_path), str(tmp_path / "top.md")])
    assert [p.relative_to(tmp_path).as_posix() for p in walked.files] == ["sub/deep.txt", "top.md"]
    assert [(s.path.name, s.reason) for s in walked.skipped] == [
        ("image.png", "unsupported type .png")
    ]
    globbed = walk([str(tmp_path / "**" / "*.txt")])
    assert [p.name for p in globbed.files] == ["deep.txt"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("missing.md", "no such file or folder"), ("nothing-*.md", "matches no file")],
)
def test_an_argument_that_names_nothing_is_refused(
    tmp_path: Path, name: str, expected: str
) -> None:
    """A typo must not ingest nothing silently."""
    with pytest.raises(UnreadableDocumentError, match=expected):
        walk([str(tmp_path / name)])


def test_an_unsupported_file_named_explicitly_is_skipped_with_its_reason(tmp_path: Path) -> None:
    """Naming a file we cannot read lists it as skipped, saying why; reading it names what
    is supported."""
    (tmp_path / "sheet.xlsx").write_bytes(b"PK")
    walked = walk([str(tmp_path / "sheet.xlsx")])
    assert walked.files == []
    assert [s.reason for s in walked.skipped] == ["unsupported type .xlsx"]
    with pytest.raises(
        UnreadableDocumentError, match=r"unsupported file type '.xlsx'; supported: .txt"
    ):
        read_document(tmp_path / "sheet.xlsx")


def test_a_corrupt_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    """A broken PDF fails with the file's name, not a library traceback."""
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 nonsense")
    with pytest.raises(UnreadableDocumentError, match=r"broken\.pdf"):
        read_document(tmp_path / "broken.pdf")


LATIN_1 = "Le café de la crème brûlée: déjà vu, naïve façade, où est la clé? Très élégant."


@pytest.mark.parametrize("suffix", [".txt", ".md", ".html"])
def test_every_text_format_detects_its_encoding_the_same_way(tmp_path: Path, suffix: str) -> None:
    """Latin-1 bytes read as their text whatever the suffix, and the encoding is reported
    (before: .txt refused whole, .html turned the accents into U+FFFD)."""
    path = tmp_path / f"latin{suffix}"
    body = f"<html><body><p>{LATIN_1}</p></body></html>" if suffix == ".html" else LATIN_1
    path.write_bytes(body.encode("latin-1"))
    document = read_document(path)
    assert LATIN_1 in document.text
    assert "\ufffd" not in document.text
    assert document.encoding is not None
    assert LATIN_1.encode(document.encoding) == LATIN_1.encode("latin-1")
    utf8 = tmp_path / f"utf8{suffix}"
    utf8.write_text(body, "utf-8")
    assert read_document(utf8).encoding == "utf-8"


def test_files_without_a_suffix_are_read_as_text_and_binary_ones_skipped(tmp_path: Path) -> None:
    """README and AUTHORS are documents; a binary file without a suffix is skipped."""
    (tmp_path / "README").write_text("Ada Lovelace wrote the notes.\n")
    (tmp_path / "AUTHORS").write_text("Grace Hopper <grace@example.org>\n")
    (tmp_path / "blob").write_bytes(bytes(range(256)) * 8)
    walked = walk([str(tmp_path)])
    assert [p.name for p in walked.files] == ["AUTHORS", "README"]
    assert [(s.path.name, s.reason) for s in walked.skipped] == [
        ("blob", "unsupported type (no suffix, and not text)")
    ]
    document = read_document(tmp_path / "README")
    assert (document.format, document.text) == ("txt", "Ada Lovelace wrote the notes.\n")


def test_a_text_file_named_docx_or_pdf_says_what_it_is(tmp_path: Path) -> None:
    """Not python-docx's "Package not found": the file is not a Word file, and is text."""
    (tmp_path / "notes.docx").write_text("just some text\n")
    with pytest.raises(
        UnreadableDocumentError,
        match=r"notes\.docx is not a DOCX file \(its bytes are plain text: rename it to \.txt\)",
    ):
        read_document(tmp_path / "notes.docx")
    (tmp_path / "paper.pdf").write_text("also text\n")
    with pytest.raises(UnreadableDocumentError, match=r"paper\.pdf is not a PDF file"):
        read_document(tmp_path / "paper.pdf")


def test_pypdf_warnings_stay_off_the_terminal(tmp_path: Path) -> None:
    """A PDF pypdf has to repair (a wrong xref offset) reads without a word on stderr, in a
    process of its own (pytest's log capture would hide what a terminal shows)."""
    path = tmp_path / "repaired.pdf"
    write_pdf(path, ["Ada Lovelace wrote notes."])
    data = path.read_bytes()
    start = data.rindex(b"startxref\n") + len(b"startxref\n")
    path.write_bytes(data[:start] + b"9" + data[start:])
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from redstring.documents import read_document;"
            " print(read_document(Path(sys.argv[1])).text)",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Ada Lovelace" in done.stdout
    assert done.stderr == ""
