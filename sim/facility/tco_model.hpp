// Total cost of ownership of the cluster and of one training run on it, against renting the same GPU-hours.
// Capex is annualised with the capital recovery factor; opex is electricity x PUE, colocation rent, support
// and staff. Formulas and sources: docs/tco.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/facility/bill_of_materials.hpp"
#include "sim/facility/cluster_inventory.hpp"
#include "sim/facility/facility_config.hpp"
#include "sim/facility/power_model.hpp"
#include "sim/facility/price_book.hpp"
#include "sim/facility/reliability_model.hpp"
#include "sim/facility/run_profile.hpp"

namespace cs {

/// One yearly cost with the price-book entry it comes from.
struct AnnualCost {
  std::string item;
  DollarRate cost;        ///< per_year(...) USD/yr, stored as USD/h
  std::string price_id;   ///< empty for a derived line (capital charge)
  std::string citation;
};

/// Renting the same GPU-hours at one cloud rate.
struct CloudComparison {
  std::string label;             ///< "on-demand", "reserved"
  std::string price_id;
  std::string citation;
  DollarRate rate;               ///< per GPU-hour
  Dollars run_cost;              ///< the training run's GPU-hours at this rate
  Dollars per_million_tokens;
  DollarRate yearly_cost;        ///< renting the cluster's GPUs at the configured utilisation, USD/yr as USD/h
  std::optional<double> break_even_utilisation;  ///< none: owning never beats renting, even at 100%
  std::optional<double> break_even_months;       ///< simple payback of the upfront capex; none: never
};

struct TcoReport {
  PowerReport power;
  ReliabilityReport reliability;
  BillOfMaterials bom;
  Dollars hardware_capex;        ///< the bill of materials
  Dollars facility_capex;        ///< site = build: facility construction; 0 in colocation
  double capital_recovery_factor = 0.0;  ///< hardware, per year
  std::vector<AnnualCost> annual;        ///< every yearly cost line, at the configured utilisation
  DollarRate capital_per_year;           ///< hardware and facility capital charges
  DollarRate fixed_per_year;             ///< all but electricity
  DollarRate electricity_busy_per_year;  ///< the year at 100% utilisation
  DollarRate electricity_idle_per_year;  ///< the year idle
  DollarRate tco_per_year;               ///< at the configured utilisation
  Dollars tco_lifetime;                  ///< tco_per_year x depreciation years
  DollarRate owned_per_gpu_hour;         ///< cluster busy all year: (fixed + busy electricity) / GPU-hours
  DollarRate owned_per_used_gpu_hour;    ///< at the configured utilisation
  Dollars run_cost;                      ///< the training run on the owned cluster
  Dollars run_cost_per_million_tokens;
  Joules run_energy_facility;
  std::vector<CloudComparison> cloud;
  std::vector<std::string> warnings;
  std::string site;                      ///< "colocation" or "build"
  std::string cooling;                   ///< "air" or "liquid"
  double utilisation = 1.0;
  int gpu_count = 0;
};

/// Checks that every entry `p` names exists with the unit its use needs; throws InputError at the scenario key.
void check_price_choice(const PriceChoice& p, const PriceBook& book);

/// Capital recovery factor r(1+r)^n / ((1+r)^n - 1) for a yearly rate r over a life of n years; 1/n when r = 0.
[[nodiscard]] double capital_recovery_factor(double rate, Time life);

/// Everything: power, reliability, bill of materials, TCO and the cloud comparison. Throws InputError for a
/// missing or mis-united price, an inconsistent inventory or run profile.
[[nodiscard]] TcoReport compute_tco(const FacilityConfig& config, const ClusterInventory& inventory,
                                    const RunProfile& run, const PriceBook& book);

}  // namespace cs
