#!/usr/bin/env python3
"""Doxygen INPUT_FILTER for dpx headers (cmake/DpxDocs.cmake).

dpx's doc comments are plain text in the Markdown style of docs/: they write placeholders such as
results/<name> or shards/<i>-of-<N>, templates such as std::vector<double>, inner products <x, y>
and LaTeX names such as \\usepackage. Doxygen would read those as HTML tags and commands (and
warn, or swallow text), so this filter escapes '<', '>' and unknown backslash commands in the
text of '///' and '//!' comments, outside `code spans`. Code and line numbers are unchanged.
"""
import re
import sys

# Doxygen commands the headers really use; any other \word in a comment is literal text.
KNOWN_COMMANDS = {"file", "brief", "param", "tparam", "return", "returns", "throws", "note",
                  "see", "ref", "code", "endcode", "p", "c", "a", "b", "e"}
COMMENT = re.compile(r"^(\s*//[/!]<?)(.*)$")


def escape_text(text):
    out = []
    for i, part in enumerate(text.split("`")):
        if i % 2 == 1:  # inside a code span: verbatim
            out.append(part)
            continue
        part = re.sub(r"\\([A-Za-z]+)",
                      lambda m: m.group(0) if m.group(1) in KNOWN_COMMANDS else "\\\\" + m.group(1),
                      part)
        part = part.replace("<", "\\<").replace(">", "\\>")
        out.append(part)
    # An unbalanced backtick leaves the tail as a span, like Markdown.
    return "`".join(out)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            m = COMMENT.match(line)
            if m:
                line = m.group(1) + escape_text(m.group(2).rstrip("\n")) + "\n"
            else:
                # Trailing member comments: code ///< text
                j = line.find("///<")
                if j >= 0:
                    line = line[:j + 4] + escape_text(line[j + 4:].rstrip("\n")) + "\n"
            sys.stdout.write(line)


if __name__ == "__main__":
    main()
