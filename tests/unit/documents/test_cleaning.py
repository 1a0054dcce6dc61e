"""Each reader's content cleaning: what a passage keeps of a Markdown, HTML or Word file."""

from __future__ import annotations

from pathlib import Path

from redstring.documents import read_document
from redstring.documents.html_text import html_to_text
from redstring.documents.markdown_text import markdown_to_text


def test_markdown_keeps_link_text_and_code_and_drops_urls_images_and_markup() -> None:
    """Link text stays and its URL goes; code stays fenced (with an info string) so it is
    retrievable yet recognisable; front matter, images and raw HTML go."""
    text = markdown_to_text(
        "---\ntitle: x\n---\n# Guide\n\nThanks to [kvakil](https://github.com/kvakil) and "
        "**Ada**. ![logo](logo.png) <span>raw</span>\n\n"
        "```\nnpm install\n```\n\n- Run `git add` first\n- Then commit\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    assert text == (
        "# Guide\n\nThanks to kvakil and Ada. raw\n\n```text\nnpm install\n```\n\n"
        "- Run `git add` first\n- Then commit\n\na | b\n1 | 2"
    )


def test_html_keeps_the_main_content_without_navigation_toc_or_boilerplate() -> None:
    """Navigation, sidebars, a table of contents, permalinks and footers go; the page title
    outside the main element stays as its first heading; code keeps its language."""
    page = """<html><body>
      <div id="header"><h1>git-add(1)</h1><div id="toc"><a href="#a">A</a></div></div>
      <nav><a href="/">Home</a></nav>
      <div class="sphinxsidebar"><p>Quick search</p></div>
      <div id="content">
        <h2>Description<a class="headerlink" href="#d">¶</a></h2>
        <p>Adds <code>files</code> to the index.</p>
        <ul><li><a href="1">One</a></li><li><a href="2">Two</a></li>
            <li><a href="3">Three</a></li><li><a href="4">Four</a></li></ul>
        <div class="highlight-python3"><pre>import os</pre></div>
      </div>
      <div id="footer">Last updated 2024</div>
    </body></html>"""
    assert html_to_text(page) == (
        "# git-add(1)\n\n## Description\n\nAdds `files` to the index.\n\n```python3\nimport os\n```"
    )


def test_word_headings_lists_and_tables_keep_their_place(tmp_path: Path) -> None:
    """A heading style becomes a ``#`` line, a list paragraph a ``- `` item, and a table sits
    where it stands in the body."""
    from docx import Document

    document = Document()
    document.add_heading("Install", level=1)
    document.add_paragraph("Before the table.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "key"
    table.cell(0, 1).text = "value"
    document.add_paragraph("One step", style="List Bullet")
    path = tmp_path / "guide.docx"
    document.save(str(path))
    assert read_document(path).text == (
        "# Install\n\nBefore the table.\n\nkey | value\n\n- One step"
    )
