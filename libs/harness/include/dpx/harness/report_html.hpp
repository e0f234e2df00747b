#pragma once
/// \file
/// Browsable reports of a results directory: `report.html` per preset (rate checks with their
/// verdicts, figures, summary tables, provenance) and `index.html` over the presets of a
/// directory, plus the provenance section of `report.md` (docs/outputs.md).
///
/// The pages are self-contained: figures are embedded as PNG data URIs (the PDFs are linked by
/// relative path), the style sheet is inline, and there is no script, font or other resource
/// from the network. Everything is read from files already in the results directory
/// (manifest.json, rates.json, summary.csv, figures/figures.json, figures/<name>.png), so the
/// pages can be regenerated at any time and say nothing the files do not.

#include <filesystem>
#include <string>

namespace dpx::harness {

/// The "## Provenance" Markdown section made from out_dir/manifest.json (commit, dates, grid,
/// seed, compiler, host, counts). Says so when there is no readable manifest.
std::string provenance_markdown(const std::filesystem::path& out_dir);

/// report.html content for a results directory.
std::string report_html(const std::filesystem::path& out_dir);

/// index.html content for a directory whose subdirectories are results directories (those
/// holding a manifest.json or report.md), sorted by name.
std::string index_html(const std::filesystem::path& dir);

/// After the analysis and the manifest are written: replaces the provenance section of
/// out_dir/report.md (appends it once), writes out_dir/report.html and, when write_index,
/// out_dir/../index.html. All atomically. Never throws for a missing or malformed input file
/// (the pages say what is missing); throws only when a file cannot be written.
void write_html_reports(const std::filesystem::path& out_dir, bool write_index);

}  // namespace dpx::harness
