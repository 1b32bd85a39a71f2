#include "gui/serving_charts.hpp"

#include <QChart>
#include <QLineSeries>
#include <QValueAxis>

#include "gui/human_units.hpp"
#include "gui/plot_axis.hpp"

namespace cs::gui {

QChart* latency_cdf_chart(const std::vector<ChartRun>& runs) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignRight);
  struct Metric {
    QString name;
    const LatencyStats ServingResult::*stats;
    QColor color;
  };
  const std::vector<Metric> metrics{{"time per output token", &ServingResult::tpot, QColor("#27ae60")},
                                    {"time to first token", &ServingResult::ttft, QColor("#2980b9")},
                                    {"end to end", &ServingResult::e2e, QColor("#8e44ad")}};
  std::vector<double> all_ms;
  for (const ChartRun& r : runs) {
    if (!r.run->result.serving) continue;
    for (const Metric& m : metrics) {
      for (const double s : (*r.run->result.serving.*m.stats).cdf_s) {
        if (s > 0) all_ms.push_back(1e3 * s);
      }
    }
  }
  if (all_ms.empty()) {
    chart->setTitle("Latency: for an inference service (a scenario with serving:)");
    return chart;
  }
  const AxisRange xr = choose_axis_range(all_ms);
  QAbstractAxis* x = make_axis(xr, "latency (ms)");
  auto* y = new QValueAxis;
  y->setTitleText("requests finished within it (%)");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  QStringList slo;
  for (const ChartRun& r : runs) {
    if (!r.run->result.serving) continue;
    const bool base = r.label == "baseline";
    const ServingResult& s = *r.run->result.serving;
    for (const Metric& m : metrics) {
      const std::vector<double>& cdf = (s.*m.stats).cdf_s;
      if (cdf.empty()) continue;
      auto* line = new QLineSeries;
      line->setName(m.name);
      for (std::size_t k = 0; k < cdf.size(); ++k) {
        if (cdf[k] <= 0) continue;  // a log axis has no zero
        line->append(1e3 * cdf[k], 100.0 * static_cast<double>(k) / static_cast<double>(cdf.size() - 1));
      }
      add_run_line(chart, line, m.color, base, x, y);
    }
    const ServiceLevel& level = r.run->scenario.serving->slo;
    slo << r.label + ": p99 TTFT " + format_duration(s.ttft.p99_s) + ", p99 TPOT " + format_duration(s.tpot.p99_s) +
               " (SLO " + format_duration(level.ttft.seconds()) + ", " + format_duration(level.tpot.seconds()) + "), " +
               format_percent(s.finished > 0 ? static_cast<double>(s.slo_met) / static_cast<double>(s.finished) : 0.0) +
               " of finished requests within both";
  }
  apply_axis_range(x, xr);
  y->setRange(0, 100);
  y->setTickCount(6);
  y->setLabelFormat("%.0f");
  chart->setTitle("Latency of the finished requests<br><small>" + slo.join("<br>") +
                  (runs.size() > 1 ? "<br>dashed: baseline" : "") + "</small>");
  return chart;
}

}  // namespace cs::gui
