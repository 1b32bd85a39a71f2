// The max-min solver alone: no engine, no topology, values checked against hand-solved systems.
#include "sim/network/max_min_system.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cs {
namespace {

using C = MaxMinSystem::ConstraintId;

TEST(MaxMinSystem, OneConstraintSharedEqually) {
  // Capacity 10, three unit-weight variables: each gets 10/3.
  MaxMinSystem s;
  const C link = s.add_constraint(10);
  const C r[] = {link};
  const auto a = s.add_variable(r), b = s.add_variable(r), c = s.add_variable(r);
  EXPECT_EQ(s.solve().size(), 3U);
  EXPECT_DOUBLE_EQ(s.value(a), 10.0 / 3);
  EXPECT_DOUBLE_EQ(s.value(b), 10.0 / 3);
  EXPECT_DOUBLE_EQ(s.value(c), 10.0 / 3);
}

TEST(MaxMinSystem, BertsekasGallagerExample) {
  // Bertsekas & Gallager 6.5: link 1 (capacity 1) carries a and b; link 2 (capacity 3) carries b and c.
  // Level rises to 1/2 where link 1 saturates: a = b = 1/2. Then c alone on link 2: c = 3 - 1/2 = 5/2.
  MaxMinSystem s;
  const C l1 = s.add_constraint(1), l2 = s.add_constraint(3);
  const C ra[] = {l1}, rb[] = {l1, l2}, rc[] = {l2};
  const auto a = s.add_variable(ra), b = s.add_variable(rb), c = s.add_variable(rc);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 0.5);
  EXPECT_DOUBLE_EQ(s.value(b), 0.5);
  EXPECT_DOUBLE_EQ(s.value(c), 2.5);
}

TEST(MaxMinSystem, WeightsSplitInProportion) {
  // Capacity 12, weights 1 and 3: the level saturates at 12 / (1 + 3) = 3, so the values are 3 and 9.
  MaxMinSystem s;
  const C r[] = {s.add_constraint(12)};
  const auto light = s.add_variable(r, 1.0), heavy = s.add_variable(r, 3.0);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(light), 3.0);
  EXPECT_DOUBLE_EQ(s.value(heavy), 9.0);
}

TEST(MaxMinSystem, ABoundedVariableLeavesItsShareToTheOthers) {
  // Capacity 10 shared by a (bound 2) and b, c (unbounded). Level 2 is reached by a's bound before the link's
  // level 10/3: a = 2; the remaining 8 goes to b and c, 4 each.
  MaxMinSystem s;
  const C r[] = {s.add_constraint(10)};
  const auto a = s.add_variable(r, 1.0, 2.0), b = s.add_variable(r), c = s.add_variable(r);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 2.0);
  EXPECT_DOUBLE_EQ(s.value(b), 4.0);
  EXPECT_DOUBLE_EQ(s.value(c), 4.0);
}

TEST(MaxMinSystem, ABoundAboveTheFairShareDoesNothing) {
  // Capacity 10, two variables, one bounded at 8 > 10/2: both get 5.
  MaxMinSystem s;
  const C r[] = {s.add_constraint(10)};
  const auto a = s.add_variable(r, 1.0, 8.0), b = s.add_variable(r);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 5.0);
  EXPECT_DOUBLE_EQ(s.value(b), 5.0);
}

TEST(MaxMinSystem, ALoneBoundedVariableStopsAtItsBound) {
  // A calibrated flow alone on a link of 100 with bandwidth factor 0.8: bound 80, value 80 (not 100).
  MaxMinSystem s;
  const C r[] = {s.add_constraint(100)};
  const auto a = s.add_variable(r, 1.0, 80.0);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 80.0);
}

TEST(MaxMinSystem, RemovingAVariableResolvesOnlyItsComponent) {
  // Two independent links: l1 carries a and b (5 each of 10), l2 carries c (7 of 7). Removing b re-solves
  // {l1, a} only: a = 10; c is not in the returned set and keeps 7.
  MaxMinSystem s;
  const C l1 = s.add_constraint(10), l2 = s.add_constraint(7);
  const C r1[] = {l1}, r2[] = {l2};
  const auto a = s.add_variable(r1), b = s.add_variable(r1), c = s.add_variable(r2);
  EXPECT_EQ(s.solve().size(), 3U);
  EXPECT_DOUBLE_EQ(s.value(a), 5.0);
  s.remove_variable(b);
  EXPECT_TRUE(s.has_pending_changes());
  const auto changed = s.solve();
  ASSERT_EQ(changed.size(), 1U);
  EXPECT_EQ(changed[0], a);
  EXPECT_DOUBLE_EQ(s.value(a), 10.0);
  EXPECT_DOUBLE_EQ(s.value(c), 7.0);
  EXPECT_TRUE(s.solve().empty());  // nothing changed since
}

TEST(MaxMinSystem, ChainsThroughSeveralBottlenecks) {
  // l1 = 2 carries a, b; l2 = 5 carries b, c, d; l3 = 4 carries d.
  // Levels: l1 at 2/2 = 1, l2 at 5/3, l3 at 4/1. l1 first: a = b = 1. l2 left 5 - 1 = 4 over c, d: 2;
  // l3 still 4 for d: l2 saturates first at 2: c = d = 2 (d's 2 <= 4 on l3).
  MaxMinSystem s;
  const C l1 = s.add_constraint(2), l2 = s.add_constraint(5), l3 = s.add_constraint(4);
  const C ra[] = {l1}, rb[] = {l1, l2}, rc[] = {l2}, rd[] = {l2, l3};
  const auto a = s.add_variable(ra), b = s.add_variable(rb), c = s.add_variable(rc), d = s.add_variable(rd);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 1.0);
  EXPECT_DOUBLE_EQ(s.value(b), 1.0);
  EXPECT_DOUBLE_EQ(s.value(c), 2.0);
  EXPECT_DOUBLE_EQ(s.value(d), 2.0);
  EXPECT_EQ(s.load(l2), 3U);
}

TEST(MaxMinSystem, IdsAreReusedAndBadInputRefused) {
  MaxMinSystem s;
  const C r[] = {s.add_constraint(1)};
  const auto a = s.add_variable(r);
  s.remove_variable(a);
  EXPECT_EQ(s.add_variable(r), a);
  EXPECT_THROW((void)s.add_constraint(-1), std::invalid_argument);
  EXPECT_THROW((void)s.add_variable(r, 0.0), std::invalid_argument);
  EXPECT_THROW((void)s.add_variable({}), std::invalid_argument);
}

}  // namespace
}  // namespace cs

namespace cs {
namespace {

TEST(MaxMinSystem, ALinkThatCannotFillCouplesNothing) {
  // a uses {l1 = 10, fat = 100}, b uses {l2 = 10, fat = 100}, c uses {l1}. Caps: a, b, c are at most 10
  // (their narrowest link), so fat carries at most 20 < 100: it can never bind, and {a, c} and {b} are
  // separate components. a = c = 5 (l1 shared), b = 10 (alone on l2).
  MaxMinSystem s;
  const C l1 = s.add_constraint(10), l2 = s.add_constraint(10), fat = s.add_constraint(100);
  const C ra[] = {l1, fat}, rb[] = {l2, fat}, rc[] = {l1};
  const auto a = s.add_variable(ra), b = s.add_variable(rb), c = s.add_variable(rc);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 5.0);
  EXPECT_DOUBLE_EQ(s.value(b), 10.0);
  EXPECT_DOUBLE_EQ(s.value(c), 5.0);
  // d joins b on l2: l2 (demand 20 > 10) now binds, b = d = 5. The walk reaches fat through b but does not
  // cross it, so a and c are not re-solved.
  const C rd[] = {l2};
  const auto d = s.add_variable(rd);
  const auto changed = s.solve();
  EXPECT_EQ(changed.size(), 2U);
  EXPECT_DOUBLE_EQ(s.value(b), 5.0);
  EXPECT_DOUBLE_EQ(s.value(d), 5.0);
  EXPECT_DOUBLE_EQ(s.value(a), 5.0);
  // Removing c frees l1 (seeded, so a is re-solved even though l1 can no longer bind): a = 10.
  s.remove_variable(c);
  (void)s.solve();
  EXPECT_DOUBLE_EQ(s.value(a), 10.0);
}

}  // namespace
}  // namespace cs
