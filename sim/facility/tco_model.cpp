#include "sim/facility/tco_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>

namespace cs {
namespace {

bool contains_ignoring_case(std::string_view text, std::string_view word) {
  const auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

AnnualCost priced_line(std::string item, DollarRate cost, const PriceItem& p) {
  return {std::move(item), cost, p.id, cite(p)};
}

/// Yearly electricity with the IT load at `it` all year, times PUE.
DollarRate electricity_per_year(Watts it, double pue, EnergyPrice price) {
  const Dollars year = price * ((it * pue) * years(1.0));
  return per_year(year.value());
}

}  // namespace

void check_price_choice(const PriceChoice& p, const PriceBook& book) {
  (void)book.at(p.electricity, PriceUnit::per_kwh);
  (void)book.at(p.colocation, PriceUnit::per_kw_month);
  (void)book.at(p.facility_build, PriceUnit::per_watt);
  (void)book.at(p.node_support, PriceUnit::per_year);
  (void)book.at(p.staff, PriceUnit::per_year);
  (void)book.at(p.rack, PriceUnit::each);
  (void)book.at(p.optical_cable, PriceUnit::each);
  (void)book.at(p.copper_cable, PriceUnit::each);
  (void)book.at(p.node_transceiver, PriceUnit::each);
  (void)book.at(p.switch_transceiver, PriceUnit::each);
  (void)book.at(p.storage, PriceUnit::per_terabyte);
  (void)book.at(p.cloud_on_demand, PriceUnit::per_hour);
  (void)book.at(p.cloud_reserved, PriceUnit::per_hour);
}

double capital_recovery_factor(double rate, Time life) {
  const double n = in_years(life);
  if (rate == 0.0) return 1.0 / n;
  const double g = std::pow(1.0 + rate, n);
  return rate * g / (g - 1.0);
}

TcoReport compute_tco(const FacilityConfig& config, const ClusterInventory& inv, const RunProfile& run,
                      const PriceBook& raw_book) {
  PriceBook book = raw_book;
  book.apply_overrides(config.price_overrides);
  const FinanceConfig& fin = config.finance;
  const PriceChoice& prices = config.prices;
  check_price_choice(prices, book);

  TcoReport t;
  t.site = std::string(to_string(config.site));
  t.cooling = std::string(to_string(config.cooling.kind));
  t.utilisation = fin.utilisation;
  t.gpu_count = inv.gpu_count();
  t.power = compute_power(config, inv, run, book);
  t.reliability = compute_reliability(config.reliability, inv, run, t.power.step_time);
  t.bom = build_bom(inv, t.power.racks, t.reliability.spare_nodes, prices.rack, book);
  t.warnings = t.power.warnings;

  // Capex. A built facility is priced per watt of peak IT load (the critical capacity it must deliver).
  t.hardware_capex = t.bom.total();
  const PriceItem& build = book.at(prices.facility_build, PriceUnit::per_watt);
  if (config.site == Site::build) t.facility_capex = Dollars{build.price.amount * t.power.it_peak.value()};

  // Fixed yearly costs.
  const double life_years = in_years(fin.depreciation);
  t.capital_recovery_factor = capital_recovery_factor(fin.cost_of_capital, fin.depreciation);
  const double residual_now = fin.residual_value / std::pow(1.0 + fin.cost_of_capital, life_years);
  t.annual.push_back({fmt::format("hardware capital charge ({:g} y at {:g}%, residual {:g}%)", life_years,
                                  100 * fin.cost_of_capital, 100 * fin.residual_value),
                      per_year(t.hardware_capex.value() * (1.0 - residual_now) * t.capital_recovery_factor), "",
                      "derived: bill of materials x capital recovery factor"});
  if (config.site == Site::build) {
    const double crf = capital_recovery_factor(fin.cost_of_capital, fin.facility_life);
    t.annual.push_back(priced_line("facility capital charge", per_year(t.facility_capex.value() * crf), build));
  }
  for (const AnnualCost& a : t.annual) t.capital_per_year += a.cost;
  if (config.site == Site::colocation) {
    const PriceItem& colo = book.at(prices.colocation, PriceUnit::per_kw_month);
    const Dollars rent = capacity_cost(book.capacity(prices.colocation), t.power.it_peak, years(1.0));
    t.annual.push_back(priced_line("colocation rent (peak IT load contracted)", per_year(rent.value()), colo));
  }
  const PriceItem& support = book.at(prices.node_support, PriceUnit::per_year);
  const double supported_nodes = inv.node_count + t.reliability.spare_nodes;
  t.annual.push_back(priced_line("support and maintenance", book.yearly(prices.node_support) * supported_nodes, support));
  if (fin.staff_fte > 0) {
    const PriceItem& staff = book.at(prices.staff, PriceUnit::per_year);
    t.annual.push_back(priced_line("operations staff", book.yearly(prices.staff) * fin.staff_fte, staff));
  }
  for (const AnnualCost& a : t.annual) t.fixed_per_year += a.cost;

  // Electricity, scaled between the idle and the busy cluster by utilisation.
  const PriceItem& power_price = book.at(prices.electricity, PriceUnit::per_kwh);
  const EnergyPrice kwh = book.energy(prices.electricity);
  t.electricity_busy_per_year = electricity_per_year(t.power.it_average, t.power.pue, kwh);
  t.electricity_idle_per_year = electricity_per_year(t.power.it_idle, t.power.pue, kwh);
  const DollarRate electricity = t.electricity_idle_per_year * (1.0 - fin.utilisation) +
                                 t.electricity_busy_per_year * fin.utilisation;
  t.annual.push_back(priced_line("electricity (IT x PUE)", electricity, power_price));

  t.tco_per_year = t.fixed_per_year + electricity;
  t.tco_lifetime = t.tco_per_year * fin.depreciation;
  const double gpu_hours_per_year = t.gpu_count * kHoursPerYear;
  t.owned_per_gpu_hour = DollarRate{usd_per_year(t.fixed_per_year + t.electricity_busy_per_year) / gpu_hours_per_year};
  t.owned_per_used_gpu_hour = DollarRate{usd_per_year(t.tco_per_year) / (gpu_hours_per_year * fin.utilisation)};

  // The training run occupies the whole cluster for its effective time.
  const Time run_time = t.reliability.effective_train_time;
  const double million_tokens = run.token_budget / 1e6;
  t.run_cost = t.owned_per_gpu_hour * run_time * static_cast<double>(t.gpu_count);
  t.run_cost_per_million_tokens = t.run_cost / million_tokens;
  t.run_energy_facility = t.power.facility_average * run_time;

  // Renting: the same GPU-hours, with the same goodput.
  const double busy_minus_idle = usd_per_year(t.electricity_busy_per_year - t.electricity_idle_per_year);
  const double running_per_month = usd_per_year(t.tco_per_year - t.capital_per_year) / 12.0;
  const double upfront = (t.hardware_capex + t.facility_capex).value();
  struct Rental {
    const char* label;
    const char* key;  ///< the scenario key that chooses the rate
    const PriceRef* ref;
  };
  for (const auto& [label, key, ref] : {Rental{"on-demand", "facility.prices.cloud_on_demand", &prices.cloud_on_demand},
                                        Rental{"reserved", "facility.prices.cloud_reserved", &prices.cloud_reserved}}) {
    const PriceItem& p = book.at(*ref, PriceUnit::per_hour);
    if (!p.gpu.empty() && !contains_ignoring_case(run.gpu.name, p.gpu)) {
      t.warnings.push_back("cloud " + std::string(label) + " rate " + p.id + " rents " + p.gpu + " GPUs, not " +
                           run.gpu.name + ": the build-versus-rent lines compare unlike GPU-hours (set " + key +
                           " or a price override to a rate for this GPU)");
    }
    CloudComparison c{label, p.id, cite(p), book.hourly(*ref), {}, {}, {}, std::nullopt, std::nullopt};
    c.run_cost = c.rate * run_time * static_cast<double>(t.gpu_count);
    c.per_million_tokens = c.run_cost / million_tokens;
    c.yearly_cost = c.rate * (t.gpu_count * fin.utilisation);
    // Owning at utilisation u costs F + E_idle + u (E_busy - E_idle); renting costs u H r.
    const double rent_full = c.rate.value() * gpu_hours_per_year;
    const double u = (usd_per_year(t.fixed_per_year) + usd_per_year(t.electricity_idle_per_year)) /
                     (rent_full - busy_minus_idle);
    if (rent_full > busy_minus_idle && u <= 1.0) c.break_even_utilisation = u;
    // Payback: months until the upfront capex is repaid by renting costs avoided, net of running costs.
    const double cloud_per_month = usd_per_year(c.yearly_cost) / 12.0;
    if (cloud_per_month > running_per_month) c.break_even_months = upfront / (cloud_per_month - running_per_month);
    t.cloud.push_back(std::move(c));
  }
  return t;
}

}  // namespace cs
