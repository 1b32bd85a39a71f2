#include "gui/summary_panel.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

#include "gui/human_units.hpp"

namespace cs::gui {
namespace {

QString str(const nlohmann::ordered_json& j) { return j.is_string() ? QString::fromStdString(j.get<std::string>()) : QString(); }

QString compute_source(const RunRecord& r) {
  const auto& c = r.json["compute_model"];
  return "Simulated step of the critical pipeline stage.<br>Compute costs: " + str(c["source"]) + " profile <i>" +
         str(c["profile"]) + "</i> (" + str(c["reference"]).toHtmlEscaped() + ").<br>Communication: " +
         QString::fromStdString(r.result.network_model) + " network model.";
}

QString power_source(const RunRecord& r) {
  if (!r.result.tco) return "no power report (the scenario has no training.token_budget)";
  const auto& p = r.result.tco->power;
  return "GPU power curve: " + QString::fromStdString(p.curve.source).toHtmlEscaped() +
         "<br>switches, transceivers and servers: price-book power ratings<br>PUE " + QString::number(p.pue) +
         " (" + QString::fromStdString(r.result.tco->cooling) + " cooling)";
}

QString capex_source(const RunRecord& r) {
  if (!r.result.tco) return "no cost report (the scenario has no training.token_budget)";
  QString s = "Bill of materials (price book):";
  for (const BomLine& l : r.result.tco->bom.lines) {
    s += "<br>" + QString::fromStdString(l.item).toHtmlEscaped() + ": " + format_dollars(l.total.value()) + " - " +
         QString::fromStdString(l.citation).toHtmlEscaped();
  }
  return s;
}

QString yearly_source(const RunRecord& r) {
  if (!r.result.tco) return "no cost report (the scenario has no training.token_budget)";
  QString s = QStringLiteral("Yearly costs at %1 utilisation:").arg(format_percent(r.result.tco->utilisation));
  for (const AnnualCost& a : r.result.tco->annual) {
    s += "<br>" + QString::fromStdString(a.item).toHtmlEscaped() + ": " + format_dollars_per_year(usd_per_year(a.cost)) +
         (a.citation.empty() ? QString() : " - " + QString::fromStdString(a.citation).toHtmlEscaped());
  }
  return s;
}

QString cloud_source(const RunRecord& r) {
  if (!r.result.tco || r.result.tco->cloud.empty()) return "no cloud price in the price book";
  const CloudComparison& c = r.result.tco->cloud.front();
  return QString::fromStdString(c.label) + " rate " + format_dollars(c.rate.value()) + "/GPU-h - " +
         QString::fromStdString(c.citation).toHtmlEscaped();
}

QString band_source(const RunRecord& r) {
  if (!r.json.contains("step_time_band_s")) return "no step-time band in this result";
  const auto& b = r.json.at("step_time_band_s");
  if (!b.is_object()) return "no step-time band in this result";
  const QString level = b["level"].is_number() ? QString::number(100 * b["level"].get<double>(), 'f', 0) + "%" : "?";
  return "Central " + level + " of the measured/predicted step-time ratios of comparable validation rows, "
         "applied to this step time.<br>Basis: " + str(b["basis"]).toHtmlEscaped();
}

QString serving_source(const RunRecord& r) {
  if (!r.result.serving) return "not an inference service";
  return "simulated request by request: " + QString::number(r.result.serving->arrived) + " requests, " +
         QString::number(r.result.serving->iterations) + " engine iterations (sim/serving); kernels priced by " +
         QString::fromStdString(r.result.compute_provenance.profile) + ", communication by " +
         QString::fromStdString(r.result.serving_comm).toHtmlEscaped();
}

std::function<double(const RunRecord&)> at(const char* pointer) {
  return [pointer](const RunRecord& r) { return r.number(pointer); };
}

/// A training run's number (NaN for an inference service, whose window is priced by its own rows).
std::function<double(const RunRecord&)> training_at(const char* pointer) {
  return [pointer](const RunRecord& r) { return r.result.serving ? std::nan("") : r.number(pointer); };
}

std::function<QString(const RunRecord&)> fixed(QString s) {
  return [s](const RunRecord&) { return s; };
}

}  // namespace

const std::vector<SummaryPanel::Metric>& SummaryPanel::metrics() {
  using T = WarningTopic;
  static const std::vector<Metric> m{
      {"step_time", "step time", at("/step_time_s"), format_duration, compute_source, true, T::compute},
      {"step_band_low", "step time, band low", at("/step_time_band_s/lo"), format_duration, band_source, true,
       T::compute},
      {"step_band_high", "step time, band high", at("/step_time_band_s/hi"), format_duration, band_source, true,
       T::compute},
      {"tokens_per_s", "throughput", at("/tokens_per_s"), [](double v) { return format_rate(v, "tokens"); },
       compute_source, false, T::compute},
      {"mfu", "MFU", at("/mfu"), format_percent,
       fixed("model FLOPs / (step time x GPUs x the profile's peak for the training precision)"), false, T::compute},
      {"sm_clock", "SM clock", at("/breakdown/sm_clock_mhz"),
       [](double mhz) { return std::isfinite(mhz) ? format_count(mhz) + " MHz" : QStringLiteral("-"); },
       fixed("the clock each replay unit's kernel mix allows under the board's power limit (the profile's power-cap "
             "model), time-weighted over the critical stage's kernels; '-' for profiles without one"),
       false, T::compute},
      {"time_to_train", "time to train", at("/time_to_train_s"), format_duration,
       fixed("training.token_budget / throughput, no failures"), true, T::general},
      {"time_to_train_failures", "time to train, with failures", at("/reliability/effective_train_time_s"),
       format_duration, fixed("reliability model: failure rates, checkpoint interval (Young/Daly) and restarts"), true,
       T::general},
      {"memory", "memory per GPU", at("/peak_memory_bytes"), format_bytes,
       [](const RunRecord& r) {
         return "most loaded GPU (stage " + QString::number(r.result.memory.stage) + "): weights, gradients, optimizer "
                "states, activations, buffers; capacity " + format_bytes(r.result.memory_capacity.value()) +
                " from the device profile";
       },
       true, T::memory},
      {"memory_use", "memory use", [](const RunRecord& r) { return r.number("/peak_memory_bytes") / r.number("/memory_capacity_bytes"); },
       format_percent, fixed("peak memory per GPU / the GPU's memory capacity; above 90 % is flagged"), true, T::memory},
      {"it_power", "IT power", at("/power/it_average_w"), format_watts, power_source, true, T::power},
      {"facility_power", "power at the meter", at("/power/facility_average_w"), format_watts, power_source, true,
       T::power},
      {"racks", "racks", at("/power/racks/total_racks"), format_count,
       fixed("compute racks (nodes per rack from the rack power and cooling limits) + network racks"), true, T::power},
      {"capex", "capex", [](const RunRecord& r) { return r.number("/tco/hardware_capex_usd") + r.number("/tco/facility_capex_usd"); },
       format_dollars, capex_source, true, T::cost},
      {"tco_year", "TCO per year", at("/tco/tco_usd_per_year"), format_dollars_per_year, yearly_source, true, T::cost},
      {"tco_lifetime", "TCO, depreciation period", at("/tco/tco_lifetime_usd"), format_dollars, yearly_source, true,
       T::cost},
      {"run_cost", "cost per training run", training_at("/tco/run_cost_usd"), format_dollars,
       fixed("the run's share of the owned cluster's yearly cost"), true, T::cost},
      {"cost_per_mtok", "cost per million tokens", training_at("/tco/run_usd_per_million_tokens"), format_dollars,
       fixed("owned run cost / tokens of the run"), true, T::cost},
      {"cloud_run_cost", "the run, rented", training_at("/tco/cloud/0/run_cost_usd"), format_dollars, cloud_source, true,
       T::cost},
      // An inference service (a scenario with serving:): these rows show instead of the training ones.
      {"ttft_p50", "time to first token, p50", at("/serving/ttft_s/p50"), format_duration, serving_source, true,
       T::compute},
      {"ttft_p99", "time to first token, p99", at("/serving/ttft_s/p99"), format_duration, serving_source, true,
       T::compute},
      {"tpot_p50", "time per output token, p50", at("/serving/tpot_s/p50"), format_duration, serving_source, true,
       T::compute},
      {"tpot_p99", "time per output token, p99", at("/serving/tpot_s/p99"), format_duration, serving_source, true,
       T::compute},
      {"output_tokens_per_s", "output tokens", at("/serving/output_tokens_per_s"),
       [](double v) { return format_rate(v, "tokens"); }, serving_source, false, T::compute},
      {"goodput", "goodput (within the SLO)", at("/serving/goodput_requests_per_s"),
       [](double v) { return format_rate(v, "requests"); }, fixed("finished requests within both the TTFT and the "
                                                                  "TPOT target, per second of the window"),
       false, T::compute},
      {"kv_occupancy", "KV cache occupancy, max", at("/serving/kv_cache/occupancy_max"), format_percent,
       fixed("the most KV-cache blocks any replica held in one iteration, over its blocks"), true, T::memory},
      {"usd_per_mtok_served", "cost per million tokens served", at("/cost/usd_per_million_tokens"), format_dollars,
       fixed("the owned cluster's cost of the simulated window / the prompt and output tokens it served"), true,
       T::cost},
      {"usd_per_mtok_output", "cost per million output tokens", at("/cost/usd_per_million_output_tokens"),
       format_dollars, fixed("the same cost charged to the output tokens alone"), true, T::cost},
  };
  return m;
}

SummaryPanel::SummaryPanel(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  heading_ = new QLabel("Run a scenario (F5) to see its result.");
  heading_->setObjectName("summary.heading");
  heading_->setWordWrap(true);
  v->addWidget(heading_);
  grid_ = new QGridLayout;
  grid_->setHorizontalSpacing(18);
  const QStringList headers{"", "current", "baseline", "change"};
  for (int c = 0; c < headers.size(); ++c) {
    auto* h = new QLabel("<b>" + headers[c] + "</b>");
    grid_->addWidget(h, 0, c, c == 0 ? Qt::AlignLeft : Qt::AlignRight);
  }
  int row = 1;
  for (const Metric& m : metrics()) {
    auto* title = new QLabel(m.title);
    title->setObjectName("summary." + m.id + ".title");
    grid_->addWidget(title, row, 0);
    for (const QString& col : {QString("value"), QString("baseline"), QString("delta")}) {
      auto* cell = new QLabel("-");
      cell->setObjectName("summary." + m.id + "." + col);
      cell->setTextInteractionFlags(Qt::TextSelectableByMouse);
      if (col == "value") cell->setStyleSheet("font-weight: bold;");
      grid_->addWidget(cell, row, col == "value" ? 1 : col == "baseline" ? 2 : 3, Qt::AlignRight);
    }
    ++row;
  }
  grid_->setColumnStretch(0, 1);
  v->addLayout(grid_);
  warnings_ = new QLabel;
  warnings_->setObjectName("summary.warnings");
  warnings_->setWordWrap(true);
  warnings_->setTextFormat(Qt::RichText);
  warnings_->setStyleSheet("color: #a04000;");
  v->addWidget(warnings_);
  v->addStretch(1);
}

void SummaryPanel::show_runs(const RunRecordPtr& current, const RunRecordPtr& baseline) {
  heading_->setText(current ? "<b>" + current->label().toHtmlEscaped() + "</b>" +
                                  (baseline ? "<br>baseline: " + baseline->label().toHtmlEscaped() : QString())
                            : QString("Run a scenario (F5) to see its result."));
  const ResultWarnings warnings = current ? sort_warnings(*current) : ResultWarnings{};
  for (const Metric& m : metrics()) {
    auto* title = findChild<QLabel*>("summary." + m.id + ".title");
    auto* value = findChild<QLabel*>("summary." + m.id + ".value");
    auto* base = findChild<QLabel*>("summary." + m.id + ".baseline");
    auto* delta = findChild<QLabel*>("summary." + m.id + ".delta");
    const double v = current ? m.read(*current) : std::nan("");
    const double b = baseline ? m.read(*baseline) : std::nan("");
    // A row neither run has (the training rows of a service, the serving rows of a training job) is hidden.
    const bool shown = !current || std::isfinite(v) || std::isfinite(b);
    for (QLabel* cell : {title, value, base, delta}) cell->setVisible(shown);
    value->setText(current ? m.format(v) : "-");
    value->setToolTip(current ? m.source(*current) : QString());
    base->setText(baseline ? m.format(b) : "-");
    base->setToolTip(baseline ? m.source(*baseline) : QString());
    const QString d = current && baseline ? format_delta(v, b) : QString();
    delta->setText(d.isEmpty() ? "-" : d);
    const bool better = (v < b) == m.lower_is_better;
    delta->setStyleSheet(d.isEmpty() || d.startsWith("±") ? QString()
                                                          : better ? "color: #1e8449;" : "color: #c0392b;");
    // A row whose topic has a warning carries it: the topic's first row gets the mark and the text on hover.
    const QStringList& w = warnings.of(m.topic);
    const bool first_of_topic = &m == &*std::find_if(metrics().begin(), metrics().end(),
                                                      [&](const Metric& x) { return x.topic == m.topic; });
    const bool mark = m.topic != WarningTopic::general && first_of_topic && !w.isEmpty();
    title->setText(mark ? m.title + " <span style='color:#c0392b'>&#9888;</span>" : m.title);
    title->setToolTip(mark ? w.join("\n") : QString());
  }
  QStringList all;
  for (WarningTopic t : {WarningTopic::memory, WarningTopic::power, WarningTopic::compute, WarningTopic::cost,
                         WarningTopic::general}) {
    for (const QString& s : warnings.of(t)) all << "&#9888; " + s.toHtmlEscaped();
  }
  warnings_->setText(all.join("<br>"));
}

QString SummaryPanel::text(const QString& id, const QString& column) const {
  auto* cell = findChild<QLabel*>("summary." + id + "." + column);
  return cell ? cell->text() : QString();
}

}  // namespace cs::gui
