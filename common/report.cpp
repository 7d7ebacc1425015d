#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tut {

Cell Cell::num(double v, const std::string& format) {
  char text[64];
  std::snprintf(text, sizeof text, format.c_str(), v);
  return Cell{text, v, true, false};
}

Cell Cell::str(std::string s) { return Cell{std::move(s), 0, false, false}; }

Cell Cell::none() { return Cell{"-", 0, false, true}; }

size_t Table::column(const std::string& key) const {
  for (size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].key == key) return c;
  throw std::invalid_argument("Table: no column '" + key + "'");
}

Table::Row Table::Row::set(const std::string& key, double value) {
  const size_t c = table_->column(key);
  const std::string& format = table_->columns_[c].format;
  if (format.empty()) throw std::invalid_argument("Table: column '" + key + "' holds text, not numbers");
  return set(key, Cell::num(value, format));
}

Table::Row Table::Row::set(const std::string& key, const std::string& text) { return set(key, Cell::str(text)); }

Table::Row Table::Row::set(const std::string& key, Cell cell) {
  table_->rows_[index_][table_->column(key)] = std::move(cell);
  return *this;
}

Table::Row Table::Row::set_ceiling(const std::string& ceiling, double fraction) {
  return set("ceiling", ceiling).set("fraction_of_ceiling", fraction);
}

std::vector<Column> with_ceiling(std::vector<Column> columns) {
  columns.emplace_back("ceiling", "ceiling", "");
  columns.emplace_back("fraction_of_ceiling", "of ceiling", "", "%.3f");
  return columns;
}

Table::Row Table::add_row() {
  rows_.emplace_back(columns_.size(), Cell::none());
  return Row(*this, rows_.size() - 1);
}

void Table::print(std::ostream& out, Format format) const {
  switch (format) {
    case Format::human: return print_human(out);
    case Format::csv: return print_csv(out);
    case Format::json: return print_json(out);
  }
}

void Table::print_human(std::ostream& out) const {
  for (const auto& [key, value] : notes_) out << key << ": " << value << "\n";
  std::vector<std::string> headings;
  std::vector<size_t> width;
  for (const Column& c : columns_) {
    headings.push_back(c.unit.empty() ? c.heading : c.heading + " (" + c.unit + ")");
    width.push_back(headings.back().size());
  }
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].text.size());
  auto pad = [&](const std::string& s, size_t c, bool right) {
    const std::string fill(width[c] - s.size(), ' ');
    out << (c ? "  " : "") << (right ? fill + s : s + fill);
  };
  // A heading sits over its values: right-aligned over numbers, left over text.
  for (size_t c = 0; c < columns_.size(); ++c)
    pad(headings[c], c, std::any_of(rows_.begin(), rows_.end(), [&](const auto& row) { return row[c].numeric; }));
  out << "\n";
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) pad(row[c].text, c, row[c].numeric || row[c].missing);
    out << "\n";
  }
}

static std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

// Whole numbers (byte counts, steps) exactly; others to 9 significant digits.
static std::string exported_number(double v) {
  char text[64];
  const bool whole = std::fabs(v) < 1e15 && v == std::floor(v);
  std::snprintf(text, sizeof text, whole ? "%.0f" : "%.9g", v);
  return text;
}

void Table::print_csv(std::ostream& out) const {
  std::string line;
  for (const auto& note : notes_) line += csv_field(note.first) + ",";
  for (const Column& c : columns_) line += csv_field(c.key) + ",";
  out << line.substr(0, line.size() - 1) << "\n";
  for (const auto& row : rows_) {
    line.clear();
    for (const auto& note : notes_) line += csv_field(note.second) + ",";
    for (const Cell& cell : row)
      line += (cell.missing ? "" : cell.numeric ? exported_number(cell.value) : csv_field(cell.text)) + ",";
    out << line.substr(0, line.size() - 1) << "\n";
  }
}

static std::string json_string(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') q += '\\';
    if (ch == '\n') { q += "\\n"; continue; }
    q += ch;
  }
  return q + "\"";
}

void Table::print_json(std::ostream& out) const {
  out << "{\n  \"notes\": {";
  for (size_t n = 0; n < notes_.size(); ++n)
    out << (n ? ", " : "") << json_string(notes_[n].first) << ": " << json_string(notes_[n].second);
  out << "},\n  \"columns\": [";
  for (size_t c = 0; c < columns_.size(); ++c)
    out << (c ? ", " : "") << "{\"key\": " << json_string(columns_[c].key)
        << ", \"unit\": " << json_string(columns_[c].unit) << "}";
  out << "],\n  \"rows\": [";
  for (size_t r = 0; r < rows_.size(); ++r) {
    out << (r ? ",\n    {" : "\n    {");
    for (size_t c = 0; c < columns_.size(); ++c) {
      const Cell& cell = rows_[r][c];
      out << (c ? ", " : "") << json_string(columns_[c].key) << ": "
          << (cell.missing ? "null" : cell.numeric ? exported_number(cell.value) : json_string(cell.text));
    }
    out << "}";
  }
  out << "\n  ]\n}\n";
}

}  // namespace tut
