#include "gui/result_charts.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "gui/human_units.hpp"

namespace cs::gui {
namespace {

struct Segment {
  QString name;
  std::function<double(const RunRecord&)> value;
};

QChart* new_chart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->setAnimationOptions(QChart::NoAnimation);
  return chart;
}

QStringList labels(const std::vector<ChartRun>& runs) {
  QStringList out;
  for (const ChartRun& r : runs) out << r.label;
  return out;
}

/// One bar set per named segment, its value for each bar.
using BarSets = std::vector<std::pair<QString, std::vector<double>>>;

/// A stacked bar per label, one bar set per segment (segments that are zero on every bar are left out); returns the
/// value axis (the caller titles it).
QValueAxis* stacked(QChart* chart, const QStringList& bars, const BarSets& sets, bool horizontal) {
  QAbstractBarSeries* series = horizontal ? static_cast<QAbstractBarSeries*>(new QHorizontalStackedBarSeries)
                                          : static_cast<QAbstractBarSeries*>(new QStackedBarSeries);
  double top = 0;
  std::vector<double> totals(static_cast<std::size_t>(bars.size()), 0.0);
  for (const auto& [name, values] : sets) {
    auto* set = new QBarSet(name);
    bool any = false;
    for (std::size_t i = 0; i < totals.size(); ++i) {
      const double v = std::max(0.0, values[i]);
      *set << v;
      totals[i] += v;
      any = any || v > 0;
    }
    if (any) series->append(set);
    else delete set;
  }
  for (double t : totals) top = std::max(top, t);
  chart->addSeries(series);
  auto* cats = new QBarCategoryAxis;
  cats->append(bars);
  auto* values = new QValueAxis;
  values->setRange(0, top > 0 ? top * 1.08 : 1);
  values->applyNiceNumbers();
  values->setLabelFormat("%g");
  chart->addAxis(cats, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
  chart->addAxis(values, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
  series->attachAxis(cats);
  series->attachAxis(values);
  return values;
}

/// A stacked bar per run.
QValueAxis* stacked(QChart* chart, const std::vector<ChartRun>& runs, const std::vector<Segment>& segments,
                    bool horizontal) {
  BarSets sets;
  for (const Segment& s : segments) {
    std::vector<double> values;
    for (const ChartRun& r : runs) values.push_back(s.value(*r.run));
    sets.emplace_back(s.name, std::move(values));
  }
  return stacked(chart, labels(runs), sets, horizontal);
}

double j(const RunRecord& r, const char* pointer) {
  const double v = r.number(pointer);
  return std::isfinite(v) ? v : 0.0;
}

}  // namespace

QChart* breakdown_chart(const std::vector<ChartRun>& runs) {
  // A run's critical stage (the last to finish) and, where another stage is the bottleneck (the least idle) and the
  // two differ in idle time by more than a tenth of the step, that one too, as a second bar: a pipeline whose
  // stages are nearly alike keeps one bar.
  auto* chart = new_chart("Step time breakdown: last stage to finish, and the busiest where it differs");
  struct Bar {
    QString label;
    const RunRecord* run;
    std::string stage;  ///< "/breakdown" or "/breakdown/busiest"
  };
  std::vector<Bar> bars;
  for (const ChartRun& r : runs) {
    const double critical = j(*r.run, "/breakdown/critical_stage"), busiest = j(*r.run, "/breakdown/busiest_stage");
    const double idle_gap = j(*r.run, "/breakdown/pipeline_bubble_and_wait_s") - j(*r.run, "/breakdown/busiest/pipeline_bubble_and_wait_s");
    const bool differs = busiest != critical && std::isfinite(r.run->number("/breakdown/busiest/compute_s")) &&
                         idle_gap > 0.1 * j(*r.run, "/step_time_s");
    // The run's label only where several runs share the chart (the axis has room for about 24 characters).
    const QString run = runs.size() > 1 ? r.label + " · " : QString();
    bars.push_back({differs ? QString("%1stage %2 (last)").arg(run).arg(critical) : r.label, r.run, "/breakdown"});
    if (differs) bars.push_back({QString("%1stage %2 (busiest)").arg(run).arg(busiest), r.run, "/breakdown/busiest"});
  }
  const auto at = [](const Bar& b, const char* key) { return j(*b.run, (b.stage + "/" + key).c_str()); };
  const auto part = [&](const char* key) { return [&at, key](const Bar& b) { return at(b, key); }; };
  const std::vector<std::pair<QString, std::function<double(const Bar&)>>> segments{
      {"compute", [&](const Bar& b) { return at(b, "compute_s") - at(b, "memory_bound_kernels_s"); }},
      {"memory-bound kernels", part("memory_bound_kernels_s")},
      {"TP comm", part("tp_comm_exposed_s")},
      {"CP comm", part("cp_comm_exposed_s")},
      {"EP comm", part("ep_comm_exposed_s")},
      {"host wait", part("host_wait_s")},
      {"PP bubble and waits", part("pipeline_bubble_and_wait_s")},
      {"DP comm", part("dp_comm_exposed_s")},
      {"optimizer", part("optimizer_s")},
      {"param gather", part("param_gather_exposed_s")},
  };
  QStringList names;
  for (const Bar& b : bars) names << b.label;
  BarSets sets;
  for (const auto& [name, value] : segments) {
    std::vector<double> values;
    for (const Bar& b : bars) values.push_back(value(b));
    sets.emplace_back(name, std::move(values));
  }
  stacked(chart, names, sets, true)->setTitleText("seconds per step");
  return chart;
}

QChart* memory_chart(const std::vector<ChartRun>& runs) {
  auto* chart = new_chart("Memory of the most loaded GPU");
  const auto gb = [](const char* p) { return [p](const RunRecord& r) { return j(r, p) / 1e9; }; };
  const std::vector<Segment> segments{
      {"weights", gb("/memory/weights_bytes")},       {"gradients", gb("/memory/gradients_bytes")},
      {"optimizer states", gb("/memory/optimizer_bytes")}, {"activations", gb("/memory/activations_bytes")},
      {"comm buffers", gb("/memory/comm_buffers_bytes")}, {"workspace", gb("/memory/workspace_bytes")},
      {"fragmentation", gb("/memory/fragmentation_bytes")},
  };
  QValueAxis* y = stacked(chart, runs, segments, false);
  y->setTitleText("GB per GPU");
  double capacity = 0;
  for (const ChartRun& r : runs) capacity = std::max(capacity, j(*r.run, "/memory_capacity_bytes") / 1e9);
  auto* cats = chart->axes(Qt::Horizontal).front();
  const double n = static_cast<double>(runs.size());
  for (const auto& [name, level, style] : {std::tuple{QString("capacity %1").arg(format_bytes(capacity * 1e9)), 1.0, Qt::SolidLine},
                                           std::tuple{QString("90 % of capacity"), 0.9, Qt::DashLine}}) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->append(-0.5, capacity * level);
    line->append(n - 0.5, capacity * level);
    QPen pen(level == 1.0 ? QColor("#c0392b") : QColor("#e67e22"));
    pen.setWidth(2);
    pen.setStyle(style);
    line->setPen(pen);
    chart->addSeries(line);
    line->attachAxis(cats);
    line->attachAxis(y);
  }
  y->setMax(std::max(y->max(), capacity * 1.1));
  y->applyNiceNumbers();
  y->setLabelFormat("%g");
  return chart;
}

void add_run_line(QChart* chart, QLineSeries* line, const QColor& color, bool baseline, QAbstractAxis* x,
                  QAbstractAxis* y) {
  QPen pen(color);
  pen.setWidth(2);
  if (baseline) pen.setStyle(Qt::DashLine);
  line->setPen(pen);
  chart->addSeries(line);
  line->attachAxis(x);
  line->attachAxis(y);
  // The legend names the current run's lines; the baseline's are the same lines dashed.
  if (baseline) chart->legend()->markers(line).front()->setVisible(false);
}

QChart* power_chart(const std::vector<ChartRun>& runs) {
  auto* chart = new_chart("Average power during training, up to the meter");
  const auto kw = [](double w) { return w / 1e3; };
  const auto gpus = [kw](const RunRecord& r) { return kw(j(r, "/power/gpu_average_w") * r.result.gpus); };
  const auto servers = [kw, gpus](const RunRecord& r) {
    // IT = nodes + switches + transceivers + other parts; the nodes' share less their GPUs is the rest of the servers.
    const double nodes = j(r, "/power/it_average_w") - j(r, "/power/switches_w") - j(r, "/power/switch_transceivers_w") -
                         j(r, "/power/other_parts_w");
    return kw(nodes) - gpus(r);
  };
  const std::vector<Segment> segments{
      {"GPUs", gpus},
      {"rest of the servers", servers},
      {"switches", [kw](const RunRecord& r) { return kw(j(r, "/power/switches_w")); }},
      {"transceivers", [kw](const RunRecord& r) { return kw(j(r, "/power/switch_transceivers_w")); }},
      {"other parts", [kw](const RunRecord& r) { return kw(j(r, "/power/other_parts_w")); }},
      {"cooling and losses (PUE)",
       [kw](const RunRecord& r) { return kw(j(r, "/power/facility_average_w") - j(r, "/power/it_average_w")); }},
  };
  stacked(chart, runs, segments, false)->setTitleText("kW (the bar's top is the meter)");
  QStringList meters;
  for (const ChartRun& r : runs) meters << r.label + ": " + format_watts(j(*r.run, "/power/facility_average_w"));
  chart->setTitle(chart->title() + "<br><small>at the meter: " + meters.join(", ") + "</small>");
  return chart;
}

QChart* cost_chart(const std::vector<ChartRun>& runs) {
  auto* chart = new_chart("Yearly cost of owning the cluster");
  std::vector<QString> items;
  for (const ChartRun& r : runs) {
    if (!r.run->result.tco) continue;
    for (const AnnualCost& a : r.run->result.tco->annual) {
      const QString item = QString::fromStdString(a.item);
      if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
    }
  }
  std::vector<Segment> segments;
  for (const QString& item : items) {
    // The legend drops the line's parenthesis ("colocation rent (peak IT load ...)"); the summary's tooltip has it.
    segments.push_back({item.section(" (", 0, 0), [item](const RunRecord& r) {
                          if (!r.result.tco) return 0.0;
                          for (const AnnualCost& a : r.result.tco->annual) {
                            if (QString::fromStdString(a.item) == item) return usd_per_year(a.cost) / 1e6;
                          }
                          return 0.0;
                        }});
  }
  stacked(chart, runs, segments, false)->setTitleText("$M per year");
  return chart;
}

QChart* rent_chart(const std::vector<ChartRun>& runs) {
  auto* chart = new_chart("Build or rent: yearly cost against utilisation");
  QStringList break_even;
  auto* x = new QValueAxis;
  x->setRange(0, 100);
  x->setTitleText("utilisation (%)");
  x->setLabelFormat("%.0f");
  auto* y = new QValueAxis;
  y->setTitleText("$M per year");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double top = 0;
  const std::vector<QColor> colors{QColor("#2c3e50"), QColor("#2980b9"), QColor("#27ae60")};
  for (const ChartRun& r : runs) {
    if (!r.run->result.tco) continue;
    const TcoReport& t = *r.run->result.tco;
    const bool base = r.label == "baseline";
    const auto add_line = [&](const QString& name, double at0, double at1, const QColor& color) {
      auto* line = new QLineSeries;
      line->setName(name);
      line->append(0, at0 / 1e6);
      line->append(100, at1 / 1e6);
      add_run_line(chart, line, color, base, x, y);
      top = std::max({top, at0 / 1e6, at1 / 1e6});
    };
    const double fixed = usd_per_year(t.fixed_per_year);
    const double idle = usd_per_year(t.electricity_idle_per_year);
    const double busy = usd_per_year(t.electricity_busy_per_year);
    add_line("own", fixed + idle, fixed + busy, colors[0]);
    auto* points = new QScatterSeries;
    QStringList at;
    points->setMarkerSize(11);
    points->setColor(QColor("#c0392b"));
    for (std::size_t i = 0; i < t.cloud.size(); ++i) {
      const CloudComparison& c = t.cloud[i];
      const double rent_full = usd_per_year(c.rate) * t.gpu_count;
      add_line("rent " + QString::fromStdString(c.label), 0, rent_full, colors[1 + i % 2]);
      if (c.break_even_utilisation) {
        const double u = *c.break_even_utilisation;
        points->append(100 * u, (fixed + idle + u * (busy - idle)) / 1e6);
        at << QString::number(100 * u, 'f', 0) + " % (" + QString::fromStdString(c.label) + ")";
      }
    }
    points->setName("break-even");
    chart->addSeries(points);
    points->attachAxis(x);
    points->attachAxis(y);
    if (base) chart->legend()->markers(points).front()->setVisible(false);
    break_even << r.label + ": " + (at.isEmpty() ? QString("renting is cheaper even at 100 %") : at.join(", "));
  }
  y->setRange(0, top > 0 ? top * 1.05 : 1);
  y->applyNiceNumbers();
  y->setLabelFormat("%g");
  chart->setTitle(chart->title() + "<br><small>break-even " + break_even.join("; ") +
                  (runs.size() > 1 ? "<br>dashed: baseline" : "") + "</small>");
  return chart;
}

}  // namespace cs::gui
