#include "gui/schedule_view.hpp"

#include <QBrush>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <algorithm>
#include <functional>

#include "gui/human_units.hpp"

namespace cs::gui {

// ---- GanttChart ----

GanttChart::GanttChart(QWidget* parent) : QWidget(parent) { setMinimumHeight(200); }

void GanttChart::set_run(const ScheduleRun* run) {
  run_ = run;
  update();
}

QColor GanttChart::colour_of(const std::string& name) {
  const auto h = std::hash<std::string>{}(name);
  return QColor::fromHsv(static_cast<int>(h % 360), 110 + static_cast<int>((h >> 9) % 80),
                         190 + static_cast<int>((h >> 17) % 50));
}

void GanttChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (run_ == nullptr) {
    p.drawText(rect(), Qt::AlignCenter, "Open a schedule file to see its jobs over the GPUs.");
    return;
  }
  const int left = 70, right = 22, top = 10, bottom = 28;
  const QRectF area(left, top, width() - left - right, height() - top - bottom);
  const double span = run_->cluster.span_s;
  const int gpus = std::max(1, run_->cluster.gpus);
  const int per = std::max(1, run_->cluster.gpus_per_node);
  const double row = area.height() / gpus;
  const auto x_of = [&](double s) { return area.left() + area.width() * s / span; };
  // Node bands, then intervals, then co-located replicas hatched over what they share.
  for (int n = 0; n * per < gpus; ++n) {
    if (n % 2 == 1) p.fillRect(QRectF(area.left(), area.top() + n * per * row, area.width(), per * row), QColor(245, 245, 245));
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& iv : run_->result.intervals) {
      if ((pass == 1) != iv.colocated) continue;
      const QRectF r(x_of(iv.from_s), area.top() + iv.first_gpu * row, std::max(1.0, x_of(iv.to_s) - x_of(iv.from_s)),
                     iv.gpus * row);
      if (iv.colocated) {
        p.fillRect(r, QBrush(colour_of(iv.who).darker(140), Qt::BDiagPattern));
      } else {
        p.fillRect(r, colour_of(iv.who));
        p.setPen(QPen(Qt::white, 0.5));
        p.drawRect(r);
        if (r.width() > 60 && r.height() > 11) {
          p.setPen(Qt::black);
          p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetrics(font()).elidedText(QString::fromStdString(iv.who), Qt::ElideRight,
                                                     static_cast<int>(r.width()) - 5));
        }
      }
    }
  }
  // Axes: nodes on the left, hours below.
  p.setPen(palette().text().color());
  const int nodes = (gpus + per - 1) / per;
  const int node_step = std::max(1, static_cast<int>(std::ceil(nodes * 14.0 / area.height())));
  for (int n = 0; n < nodes; n += node_step) {
    p.drawText(QRectF(0, area.top() + n * per * row, left - 6, std::max(12.0, per * row)), Qt::AlignRight | Qt::AlignTop,
               QStringLiteral("node %1").arg(n));
  }
  const double hours = span / 3600;
  const double tick = hours <= 48 ? 6 : hours <= 24 * 8 ? 24 : 24 * 7;
  for (double h = 0; h <= hours + 1e-9; h += tick) {
    const double x = x_of(h * 3600);
    p.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 4));
    p.drawText(QRectF(x - 30, area.bottom() + 4, 60, 16), Qt::AlignCenter, QStringLiteral("%1 h").arg(h));
  }
  p.drawRect(area);
}

// ---- ScheduleView ----

namespace {

QString hours_text(double s) { return QStringLiteral("%1 h").arg(s / 3600, 0, 'f', 1); }

enum Column { kName, kKind, kStart, kFinish, kGpuHours, kSlo, kTpot, kCost, kColumns };

}  // namespace

ScheduleView::ScheduleView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  open_ = new QPushButton("Open schedule...");
  open_->setToolTip("Simulate a schedule file (docs/schedule.md): jobs, services, a policy and isolation");
  bar->addWidget(open_);
  bar->addStretch(1);
  summary_ = new QLabel("Open a schedule file: a cluster shared by training, batch jobs and services over time.");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  gantt_ = new GanttChart;
  hours_ = new QChartView;
  hours_->setRenderHint(QPainter::Antialiasing);
  hours_->setMinimumHeight(160);
  table_ = new QTableWidget(0, kColumns);
  table_->setHorizontalHeaderLabels({"Name", "Kind", "Started", "Finished", "GPU-hours", "SLO met", "TPOT p99 (worst hour)", "Cost"});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(gantt_);
  split->addWidget(hours_);
  split->addWidget(table_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 2);
  split->setStretchFactor(2, 2);
  layout->addLayout(bar);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &ScheduleView::on_done);
  connect(open_, &QPushButton::clicked, this, [this] { Q_EMIT open_requested(); });
}

ScheduleView::~ScheduleView() { watcher_.waitForFinished(); }

bool ScheduleView::busy() const { return watcher_.isRunning(); }

QString ScheduleView::summary_text() const { return summary_->text(); }

void ScheduleView::wait() {
  watcher_.waitForFinished();
  QCoreApplication::processEvents();
}

bool ScheduleView::open(const QString& path) {
  if (busy()) return false;
  summary_->setText("Simulating " + QFileInfo(path).fileName() + ": every job and service priced, then the span...");
  open_->setEnabled(false);
  auto work = [file = path.toStdString()]() -> Outcome {
    Outcome out;
    try {
      out.run = api::schedule(file);
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    return out;
  };
  watcher_.setFuture(QtConcurrent::run(std::move(work)));
  return true;
}

void ScheduleView::on_done() {
  Outcome out = watcher_.result();
  open_->setEnabled(true);
  if (!out.error.isEmpty()) {
    summary_->setText("Schedule failed: " + out.error);
  } else {
    run_ = std::move(out.run);
    show_run();
  }
  Q_EMIT schedule_ended();
}

void ScheduleView::show_run() {
  const ScheduleRun& run = *run_;
  const ScheduleResult& r = run.result;
  gantt_->set_run(&*run_);
  QString services;
  for (const auto& s : r.services) {
    services += QStringLiteral("; %1 met its SLO for %2 of requests").arg(QString::fromStdString(s.name),
                                                                           format_percent(s.slo_attainment));
  }
  summary_->setText(QStringLiteral("%1: %2 GPUs over %3, policy %4, isolation %5. GPUs allocated %6, busy %7; "
                                   "energy %8 kWh, peak facility power %9; cost %10%11.")
                        .arg(QString::fromStdString(run.config.name))
                        .arg(run.cluster.gpus)
                        .arg(format_duration(run.cluster.span_s))
                        .arg(QString::fromStdString(std::string(policy_names().name(run.config.policy))))
                        .arg(QString::fromStdString(std::string(isolation_names().name(run.config.isolation))))
                        .arg(format_percent(r.gpu_allocated_fraction))
                        .arg(format_percent(r.gpu_busy_fraction))
                        .arg(format_count(r.energy_kwh))
                        .arg(format_watts(r.peak_facility_kw * 1e3))
                        .arg(format_dollars(r.tco_usd))
                        .arg(services));
  // Hour by hour: allocated and busy (%), facility power (kW) on a second axis, the circuit as a line.
  auto* chart = new QChart;
  chart->setTitle("Hour by hour");
  auto* alloc = new QLineSeries;
  alloc->setName("GPUs allocated (%)");
  auto* busy = new QLineSeries;
  busy->setName("GPUs busy (%)");
  auto* power = new QLineSeries;
  power->setName("Peak facility power (kW)");
  double kw_max = 0;
  for (std::size_t h = 0; h < r.hours.size(); ++h) {
    alloc->append(static_cast<double>(h), 100 * r.hours[h].allocated_fraction);
    busy->append(static_cast<double>(h), 100 * r.hours[h].busy_fraction);
    power->append(static_cast<double>(h), r.hours[h].peak_facility_kw);
    kw_max = std::max(kw_max, r.hours[h].peak_facility_kw);
  }
  auto* ax = new QValueAxis;
  ax->setTitleText("Hour");
  ax->setRange(0, std::max<double>(1, static_cast<double>(r.hours.size())));
  ax->setLabelFormat("%d");
  auto* ay = new QValueAxis;
  ay->setTitleText("%");
  ay->setRange(0, 100);
  auto* ap = new QValueAxis;
  ap->setTitleText("kW");
  const double circuit_kw = run.cluster.circuit_w ? *run.cluster.circuit_w / 1e3 : 0;
  ap->setRange(0, std::max(kw_max, circuit_kw) * 1.1 + 1e-9);
  chart->addAxis(ax, Qt::AlignBottom);
  chart->addAxis(ay, Qt::AlignLeft);
  chart->addAxis(ap, Qt::AlignRight);
  for (QLineSeries* s : {alloc, busy}) {
    chart->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
  }
  chart->addSeries(power);
  power->attachAxis(ax);
  power->attachAxis(ap);
  if (circuit_kw > 0) {
    auto* circuit = new QLineSeries;
    circuit->setName("Circuit (kW)");
    circuit->append(0, circuit_kw);
    circuit->append(static_cast<double>(r.hours.size()), circuit_kw);
    circuit->setPen(QPen(Qt::red, 1.5, Qt::DashLine));
    chart->addSeries(circuit);
    circuit->attachAxis(ax);
    circuit->attachAxis(ap);
  }
  QChart* old = hours_->chart();
  hours_->setChart(chart);
  delete old;
  // The table: jobs, then services.
  table_->setRowCount(0);
  const auto cell = [&](int row, int col, const QString& text) {
    table_->setItem(row, col, new QTableWidgetItem(text));
  };
  for (const auto& j : r.jobs) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* name = new QTableWidgetItem(QString::fromStdString(j.name));
    name->setBackground(GanttChart::colour_of(j.name));
    table_->setItem(row, kName, name);
    cell(row, kKind, j.kind == JobKind::training ? "training" : "batch");
    cell(row, kStart, j.started_s ? hours_text(*j.started_s) : (j.never_fits.empty() ? "-" : "never fits"));
    cell(row, kFinish, j.finished_s ? hours_text(*j.finished_s)
                                    : QStringLiteral("%1 done").arg(format_percent(j.progress)));
    cell(row, kGpuHours, format_count(j.gpu_hours));
    cell(row, kCost, format_dollars(j.cost_usd));
  }
  for (const auto& s : r.services) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* name = new QTableWidgetItem(QString::fromStdString(s.name));
    name->setBackground(GanttChart::colour_of(s.name));
    table_->setItem(row, kName, name);
    cell(row, kKind, s.colocation.empty() ? "serving" : "serving (co-located)");
    cell(row, kGpuHours, format_count(s.gpu_hours));
    cell(row, kSlo, format_percent(s.slo_attainment));
    cell(row, kTpot, s.tpot_p99_s ? format_duration(*s.tpot_p99_s) : "-");
    cell(row, kCost, format_dollars(s.cost_usd));
  }
  table_->resizeColumnsToContents();
}

}  // namespace cs::gui
