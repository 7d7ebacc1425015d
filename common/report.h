// Result tables: aligned for people (default), CSV or JSON for tools. A table declares its
// columns once (key, heading, unit, number format), and rows fill them by key. Notes (device,
// ceiling, problem) print above the table, become leading CSV columns, and a "notes" object in
// JSON.
#pragma once
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace tut {

enum class Format { human, csv, json };

struct Column {
  Column(std::string key_, std::string heading_, std::string unit_, std::string format_ = "")
      : key(std::move(key_)), heading(std::move(heading_)), unit(std::move(unit_)), format(std::move(format_)) {}
  std::string key;      // machine name, used in CSV and JSON: "time_s"
  std::string heading;  // human heading: "time per 5000 steps"
  std::string unit;     // "s", "GB/s", "" for none
  std::string format;   // how its numbers are shown, "%.4f"; "" for a column of text
};

struct Cell {
  std::string text;  // shown to people
  double value = 0;  // exported when numeric
  bool numeric = false, missing = false;
  static Cell num(double v, const std::string& format);
  static Cell str(std::string s);
  static Cell none();  // "-" for people, empty in CSV, null in JSON
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_note(std::string key, std::string value) { notes_.emplace_back(std::move(key), std::move(value)); }

  // A row, filled by column key; a cell that is never set is missing ("-"). add_row() hands
  // out a handle on the new row, and each set() returns it, so that calls chain.
  class Row {
   public:
    Row set(const std::string& key, double value);  // shown in the column's format
    Row set(const std::string& key, const std::string& text);
    Row set(const std::string& key, const char* text) { return set(key, std::string(text)); }
    Row set(const std::string& key, Cell cell);     // a cell made by hand, in a column of mixed cells
    // The stage against the ceiling measured in the same run (the columns with_ceiling adds).
    Row set_ceiling(const std::string& ceiling, double fraction);

   private:
    friend class Table;
    Row(Table& table, size_t index) : table_(&table), index_(index) {}
    Table* table_;
    size_t index_;
  };
  Row add_row();
  void print(std::ostream& out, Format format) const;

 private:
  void print_human(std::ostream& out) const;
  void print_csv(std::ostream& out) const;
  void print_json(std::ostream& out) const;
  std::vector<Column> columns_;
  std::vector<std::pair<std::string, std::string>> notes_;
  size_t column(const std::string& key) const;  // throws std::invalid_argument for an unknown key
  std::vector<std::vector<Cell>> rows_;
};

// COLUMNS and the two with which every chapter program reports a stage against the ceiling it
// measured in the same run: `ceiling` names it (copy, cuBLAS), `fraction_of_ceiling` is the
// stage's share of it. tools/grade.py --perf reads these two columns, the same in every chapter.
std::vector<Column> with_ceiling(std::vector<Column> columns);

}  // namespace tut
