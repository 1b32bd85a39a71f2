#include "gui/design_view.hpp"

#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QPen>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <cmath>
#include <map>

#include "gui/scenario_document.hpp"

namespace cs::gui {
namespace {

enum DesignColumn { kDesignCandidate, kDesignTiers, kDesignNetCapex, kDesignCapex, kDesignNetPower, kDesignStep, kDesignTrain, kDesignTco, kDesignFront, kDesignVerdict, kDesignColumns };
enum DesignBomColumn { kBomQty, kBomItem, kBomUnit, kBomTotal, kBomSource, kBomColumns };
constexpr double kDesignDay = 86400.0;

QTableWidgetItem* design_number_item(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QString design_usd_m(double usd) { return QString::number(usd / 1e6, 'f', 2); }

/// One colour per family (Qt's default palette repeats after five), and a square for rail-only, which often sits
/// on the rail-optimized point.
void style_family(QScatterSeries* s, const std::string& family) {
  static const std::map<std::string, QColor> colours{
      {"fat-tree", QColor(31, 119, 180)}, {"rail-optimized", QColor(255, 127, 14)}, {"rail-only", QColor(44, 160, 44)},
      {"torus", QColor(214, 39, 40)},     {"hypercube", QColor(148, 103, 189)},     {"dragonfly", QColor(140, 86, 75)},
      {"ocs", QColor(227, 119, 194)}};
  const auto it = colours.find(family);
  if (it != colours.end()) s->setColor(it->second);
  s->setBorderColor(s->color());
  if (family == "rail-only") {
    s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    s->setMarkerSize(14);
  }
}

}  // namespace

DesignView::DesignView(ScenarioDocument& doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  setObjectName("design");
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  run_ = new QPushButton("Design fabrics");
  run_->setObjectName("design.run");
  run_->setToolTip("Build, simulate and price every candidate fabric for this job (clustersim design)");
  gpus_ = new QSpinBox;
  gpus_->setRange(0, 1 << 20);
  gpus_->setSpecialValueText("scenario's");
  gpus_->setToolTip("GPUs of the build; the scenario's cluster.gpus when left at its own");
  bar->addWidget(run_);
  bar->addWidget(new QLabel("GPUs"));
  bar->addWidget(gpus_);
  bar->addStretch();
  summary_ = new QLabel("Compare fat-trees, rail-optimized, rail-only, torus, hypercube, dragonfly and OCS fabrics for "
                        "the job in the editor (docs/design.md).");
  summary_->setObjectName("design.summary");
  summary_->setWordWrap(true);
  chart_ = new QChartView(new QChart);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(220);
  table_ = new QTableWidget(0, kDesignColumns);
  table_->setHorizontalHeaderLabels({"Candidate", "Tiers", "Network capex (M USD)", "Capex (M USD)",
                                     "Network power (kW)", "Step (s)", "To train (days)", "TCO (M USD/yr)", "Front",
                                     "Why it lost"});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  bom_ = new QTableWidget(0, kBomColumns);
  bom_->setHorizontalHeaderLabels({"Quantity", "Item", "Each (USD)", "Total (USD)", "Price source"});
  bom_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  bom_->verticalHeader()->hide();
  bom_->horizontalHeader()->setStretchLastSection(true);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(chart_);
  split->addWidget(table_);
  split->addWidget(bom_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 2);
  layout->addLayout(bar);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &DesignView::on_done);
  connect(run_, &QPushButton::clicked, this, [this] { start(); });
}

DesignView::~DesignView() { watcher_.waitForFinished(); }

void DesignView::set_gpus(int gpus) { gpus_->setValue(gpus); }

bool DesignView::busy() const { return watcher_.isRunning(); }

QString DesignView::summary_text() const { return summary_->text(); }

void DesignView::wait() {
  watcher_.waitForFinished();
  QCoreApplication::processEvents();
}

bool DesignView::start() {
  if (busy()) return false;
  summary_->setText("Designing: every candidate is built, replayed and priced...");
  run_->setEnabled(false);
  api::DesignRequest req;
  req.gpus = gpus_->value();
  auto work = [text = doc_.text(), name = doc_.display_name(), req]() -> Outcome {
    Outcome out;
    try {
      out.report = api::design({.path = name, .text = text, .set = {}, .profile = ""}, req);
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    return out;
  };
  watcher_.setFuture(QtConcurrent::run(std::move(work)));
  return true;
}

void DesignView::on_done() {
  const Outcome out = watcher_.result();
  run_->setEnabled(true);
  if (!out.error.isEmpty()) {
    summary_->setText("Design failed: " + out.error);
  } else {
    report_ = out.report;
    show_report();
  }
  Q_EMIT design_ended();
}

void DesignView::show_report() {
  const DesignReport& r = report_;
  QString best = "no candidate fits the limits";
  if (r.best >= 0) best = "best: " + QString::fromStdString(r.candidates[static_cast<std::size_t>(r.best)].label);
  summary_->setText(QStringLiteral("%1 candidates for %2 GPUs (%3 nodes); %4. Time to train against network capex; "
                                   "ringed points are on the Pareto front (time to train, network capex, TCO).")
                        .arg(r.candidates.size())
                        .arg(r.gpus)
                        .arg(r.nodes)
                        .arg(best));
  // The plot: one series per family, the front ringed by a second, hollow series.
  auto* chart = new QChart;
  chart->setTitle("Candidate fabrics");
  std::map<std::string, QScatterSeries*> by_family;
  auto* front = new QScatterSeries;
  front->setName("Pareto front");
  front->setMarkerSize(18);
  front->setColor(Qt::transparent);
  front->setBorderColor(Qt::black);
  front->setPen(QPen(Qt::black, 2));
  double xmax = 0, ymin = 1e300, ymax = 0;
  for (const DesignCandidate& c : r.candidates) {
    // A schedule's candidate whose training was unfinished in the span has no time to train to plot.
    if (!c.error.empty() || !std::isfinite(c.time_to_train_s)) continue;
    auto& s = by_family[c.family];
    if (s == nullptr) {
      s = new QScatterSeries;
      s->setName(QString::fromStdString(c.family));
      s->setMarkerSize(10);
      style_family(s, c.family);
    }
    const double x = c.network_capex_usd / 1e6, y = c.time_to_train_s / kDesignDay;
    s->append(x, y);
    if (c.pareto) front->append(x, y);
    xmax = std::max(xmax, x);
    ymin = std::min(ymin, y);
    ymax = std::max(ymax, y);
  }
  auto* ax = new QValueAxis;
  ax->setTitleText("Network capex (M USD)");
  ax->setRange(0, xmax * 1.1 + 1e-9);
  auto* ay = new QValueAxis;
  ay->setTitleText("Time to train (days)");
  ay->setRange(ymin > ymax ? 0 : ymin * 0.95, ymax * 1.05 + 1e-9);
  chart->addAxis(ax, Qt::AlignBottom);
  chart->addAxis(ay, Qt::AlignLeft);
  for (auto& [family, s] : by_family) {
    chart->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
  }
  chart->addSeries(front);
  front->attachAxis(ax);
  front->attachAxis(ay);
  chart->legend()->setAlignment(Qt::AlignRight);
  QChart* old = chart_->chart();
  chart_->setChart(chart);
  delete old;

  table_->setRowCount(static_cast<int>(r.candidates.size()));
  for (int i = 0; i < table_->rowCount(); ++i) {
    const DesignCandidate& c = r.candidates[static_cast<std::size_t>(i)];
    table_->setItem(i, kDesignCandidate, new QTableWidgetItem(QString::fromStdString(c.label)));
    if (!c.error.empty()) {
      table_->setItem(i, kDesignVerdict, new QTableWidgetItem("not built: " + QString::fromStdString(c.error)));
      continue;
    }
    table_->setItem(i, kDesignTiers, design_number_item(QString::number(c.tiers)));
    table_->setItem(i, kDesignNetCapex, design_number_item(design_usd_m(c.network_capex_usd)));
    table_->setItem(i, kDesignCapex, design_number_item(design_usd_m(c.capex_usd)));
    table_->setItem(i, kDesignNetPower, design_number_item(QString::number(c.network_power_w / 1e3, 'f', 1)));
    table_->setItem(i, kDesignStep, design_number_item(QString::number(c.step_time_s, 'f', 3)));
    table_->setItem(i, kDesignTrain, design_number_item(QString::number(c.time_to_train_s / kDesignDay, 'f', 2)));
    table_->setItem(i, kDesignTco, design_number_item(design_usd_m(c.tco_usd_per_year)));
    table_->setItem(i, kDesignFront, new QTableWidgetItem(c.pareto ? "yes" : ""));
    table_->setItem(i, kDesignVerdict, new QTableWidgetItem(QString::fromStdString(c.verdict)));
  }
  table_->resizeColumnsToContents();
  bom_->setRowCount(0);
  if (r.best < 0) return;
  const auto& lines = r.candidates[static_cast<std::size_t>(r.best)].network_bom;
  bom_->setRowCount(static_cast<int>(lines.size()));
  for (int i = 0; i < bom_->rowCount(); ++i) {
    const BomLine& l = lines[static_cast<std::size_t>(i)];
    bom_->setItem(i, kBomQty, design_number_item(QString::number(l.quantity, 'f', 0)));
    bom_->setItem(i, kBomItem, new QTableWidgetItem(QString::fromStdString(l.item)));
    bom_->setItem(i, kBomUnit, design_number_item(QString::number(l.unit_price.value(), 'f', 0)));
    bom_->setItem(i, kBomTotal, design_number_item(QString::number(l.total.value(), 'f', 0)));
    bom_->setItem(i, kBomSource, new QTableWidgetItem(QString::fromStdString(l.citation)));
  }
  bom_->resizeColumnsToContents();
}

}  // namespace cs::gui
