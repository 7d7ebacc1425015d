// Result tables: aligned for people (default), CSV or JSON for tools. Every numeric column
// carries its unit; notes (device, ceiling, problem) print above the table, become leading
// CSV columns, and a "notes" object in JSON.
#pragma once
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace tut {

enum class Format { human, csv, json };

struct Column {
  std::string key;      // machine name, used in CSV and JSON: "time_s"
  std::string heading;  // human heading: "time per 5000 steps"
  std::string unit;     // "s", "GB/s", "" for none
};

struct Cell {
  std::string text;  // shown to people
  double value = 0;  // exported when numeric
  bool numeric = false, missing = false;
  static Cell num(double v, int decimals);
  static Cell str(std::string s);
  static Cell none();  // "-" for people, empty in CSV, null in JSON
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_note(std::string key, std::string value) { notes_.emplace_back(std::move(key), std::move(value)); }
  void add_row(std::vector<Cell> row);  // throws if the row's width is wrong
  void print(std::ostream& out, Format format) const;

 private:
  void print_human(std::ostream& out) const;
  void print_csv(std::ostream& out) const;
  void print_json(std::ostream& out) const;
  std::vector<Column> columns_;
  std::vector<std::pair<std::string, std::string>> notes_;
  std::vector<std::vector<Cell>> rows_;
};

}  // namespace tut
