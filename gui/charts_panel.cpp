#include "gui/charts_panel.hpp"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "gui/result_charts.hpp"
#include "gui/result_warnings.hpp"
#include "gui/serving_charts.hpp"
#include "gui/timeline_view.hpp"

namespace cs::gui {

ChartsPanel::ChartsPanel(QWidget* parent) : QTabWidget(parent) {
  setObjectName("charts");
  add_page("breakdown", "Step breakdown");
  add_page("memory", "Memory");
  add_page("power", "Power");
  add_page("cost", "Yearly cost");
  add_page("rent", "Build vs rent");
  add_page("latency", "Latency");
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  timeline_ = new TimelineView;
  scroll->setWidget(timeline_);
  addTab(scroll, "Timeline");
}

void ChartsPanel::add_page(const QString& name, const QString& title) {
  auto* w = new QWidget;
  auto* v = new QVBoxLayout(w);
  v->setContentsMargins(2, 2, 2, 2);
  Page page{name, new QLabel, new QChartView};
  page.warning->setObjectName("charts." + name + ".warning");
  page.warning->setWordWrap(true);
  page.warning->setStyleSheet("background: #fdebd0; color: #873600; padding: 4px;");
  page.warning->hide();
  page.view->setObjectName("charts." + name);
  page.view->setRenderHint(QPainter::Antialiasing);
  page.view->chart()->setTitle("Run a scenario to see this chart.");
  v->addWidget(page.warning);
  v->addWidget(page.view, 1);
  addTab(w, title);
  pages_.push_back(page);
}

ChartsPanel::Page& ChartsPanel::page(const QString& name) {
  return *std::find_if(pages_.begin(), pages_.end(), [&](const Page& p) { return p.name == name; });
}

QChart* ChartsPanel::chart(const QString& name) const {
  for (const Page& p : pages_) {
    if (p.name == name) return p.view->chart();
  }
  return nullptr;
}

void ChartsPanel::set_warnings(const QString& name, const QStringList& warnings) {
  Page& p = page(name);
  p.warning->setText(QStringLiteral("⚠ ") + warnings.join(QStringLiteral("\n⚠ ")));
  p.warning->setVisible(!warnings.isEmpty());
  const int index = indexOf(p.warning->parentWidget());
  QString title = tabText(index);
  title.remove(QStringLiteral(" ⚠"));
  setTabText(index, warnings.isEmpty() ? title : title + QStringLiteral(" ⚠"));
}

void ChartsPanel::show_runs(const RunRecordPtr& current, const RunRecordPtr& baseline) {
  timeline_->show_run(current);
  if (!current) return;
  std::vector<ChartRun> runs;
  if (baseline) runs.push_back({"baseline", baseline.get()});
  runs.push_back({"current", current.get()});
  const auto replace = [&](const QString& name, QChart* chart) {
    QChartView* view = page(name).view;
    QChart* old = view->chart();
    view->setChart(chart);
    delete old;
  };
  replace("breakdown", breakdown_chart(runs));
  replace("memory", memory_chart(runs));
  replace("power", power_chart(runs));
  replace("cost", cost_chart(runs));
  replace("rent", rent_chart(runs));
  replace("latency", latency_cdf_chart(runs));
  const ResultWarnings w = sort_warnings(*current);
  set_warnings("breakdown", w.compute);
  set_warnings("memory", w.memory);
  set_warnings("power", w.power);
  set_warnings("cost", w.cost);
  set_warnings("rent", {});
  set_warnings("latency", {});
}

}  // namespace cs::gui
