// Result tables: Pareto fronts, --where conditions and output names.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/sweep/result_query.hpp"

namespace cs {
namespace {

TEST(ResultQuery, ParetoFrontOfAHandCheckedSet) {
  // (time to train, cost), both minimised:
  //   0 (1, 9)  front: fastest
  //   1 (2, 4)  front
  //   2 (3, 5)  dominated by 1 (2 <= 3 and 4 <= 5)
  //   3 (4, 2)  front
  //   4 (5, 2)  dominated by 3 (equal cost, slower)
  //   5 (6, 1)  front: cheapest
  //   6 (2, 4)  equal to 1: neither dominates the other, both stay
  const std::vector<std::vector<double>> pts{{1, 9}, {2, 4}, {3, 5}, {4, 2}, {5, 2}, {6, 1}, {2, 4}};
  EXPECT_EQ(pareto_front(pts), (std::vector<std::size_t>{0, 1, 3, 5, 6}));
  // Three objectives: (1,1,5) and (2,2,1) trade off; (2,2,6) is dominated by (1,1,5).
  EXPECT_EQ(pareto_front({{1, 1, 5}, {2, 2, 1}, {2, 2, 6}}), (std::vector<std::size_t>{0, 1}));
}

TEST(ResultQuery, RecordsFlattenTheJsonResultAndAxes) {
  ResultRow row;
  row.point_index = 3;
  row.status = "ok";
  row.axes = R"({"cluster.gpus": "1024", "cluster.profile": "h200"})";
  row.result = R"({"step_time_s": 2.5, "tco": {"tco_usd_per_year": 1.2e7, "capex": {"gpus_usd": 3}}, "fits_in_memory": true})";
  const ResultRecord r = to_record(row);
  EXPECT_EQ(std::get<double>(*r.find("step_time_s")), 2.5);
  EXPECT_EQ(std::get<double>(*r.find("tco.tco_usd_per_year")), 1.2e7);
  EXPECT_EQ(std::get<double>(*r.find("tco.capex.gpus_usd")), 3);
  EXPECT_EQ(std::get<double>(*r.find("fits_in_memory")), 1);
  EXPECT_EQ(std::get<double>(*r.find("cluster.gpus")), 1024);
  EXPECT_EQ(std::get<std::string>(*r.find("cluster.profile")), "h200");
  const std::vector<ResultRecord> all{r};
  EXPECT_EQ(resolve_field(all, "tco_usd_per_year", "--pareto"), "tco.tco_usd_per_year");
  EXPECT_EQ(resolve_field(all, "step_time_s", "--pareto"), "step_time_s");
  EXPECT_THROW((void)resolve_field(all, "nothing_s", "--pareto"), InputError);

  EXPECT_TRUE(parse_condition("cluster.gpus>=1024").holds(r));
  EXPECT_FALSE(parse_condition("cluster.gpus < 1024").holds(r));
  EXPECT_TRUE(parse_condition("cluster.profile=h200").holds(r));
  EXPECT_TRUE(parse_condition("status != failed").holds(r));
  EXPECT_THROW((void)parse_condition("gpus"), InputError);
  EXPECT_TRUE(parse_objective("mfu:max").maximise);
  EXPECT_FALSE(parse_objective("step_time_s").maximise);
}

}  // namespace
}  // namespace cs
