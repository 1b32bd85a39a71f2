// CsvTable: comment lines ahead of the header are skipped and the rows keep their true line numbers.
#include "sim/input/csv_table.hpp"

#include <gtest/gtest.h>

namespace cs {
namespace {

TEST(CsvTable, CommentLinesAheadOfTheHeaderAreSkipped) {
  const CsvTable t = CsvTable::parse("# made by a test\n# second line, with a comma\na,b\n1,2\n\"#x\",3\n", "t.csv");
  ASSERT_EQ(t.header(), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(t.rows().size(), 2u);
  EXPECT_EQ(t.rows()[0].line, 4);  // lines 1-2 comments, 3 the header
  EXPECT_EQ(t.cell(t.rows()[1], "a"), "#x");
  EXPECT_EQ(t.rows()[1].line, 5);
}

TEST(CsvTable, HashAfterTheHeaderIsData) {
  // Only lines ahead of the header are comments: later, a leading '#' is a cell's text, so a row with the
  // wrong cell count is still a located error.
  try {
    (void)CsvTable::parse("a,b\n# not a comment\n", "t.csv");
    FAIL() << "a one-cell row under a two-column header must be rejected";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
  }
}

}  // namespace
}  // namespace cs
