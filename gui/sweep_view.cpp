#include "gui/sweep_view.hpp"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QCursor>
#include <QPen>
#include <QToolTip>
#include <QPushButton>
#include <QScatterSeries>
#include <QValueAxis>
#include <QVBoxLayout>

#include <cmath>

namespace cs::gui {
namespace {

/// How a field is shown on an axis, from its unit suffix (docs/sweeps.md names fields by unit): a divisor and a
/// unit that keep the labels short ("days", "$M", "MW", "GB"); fields without a known suffix stay as they are.
std::pair<double, QString> axis_scale(const std::string& field, double largest) {
  const auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return field.size() >= s.size() && field.compare(field.size() - s.size(), s.size(), s) == 0;
  };
  if (ends("_usd_per_year")) return {1e6, "$M/yr"};
  if (ends("_usd")) return largest >= 1e6 ? std::pair{1e6, QString("$M")} : std::pair{1e3, QString("$k")};
  if (ends("_s")) {
    if (largest >= 2 * 86400.0) return {86400.0, "days"};
    if (largest >= 2 * 3600.0) return {3600.0, "h"};
    return {1.0, "s"};
  }
  if (ends("_w")) return largest >= 1e6 ? std::pair{1e6, QString("MW")} : std::pair{1e3, QString("kW")};
  if (ends("_bytes")) return {1e9, "GB"};
  return {1.0, ""};
}

}  // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent) {
  setObjectName("sweep");
  auto* v = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  auto* open = new QPushButton("Open results database...");
  connect(open, &QPushButton::clicked, this, &SweepView::open_requested);
  source_ = new QLabel("No sweep open (clustersim sweep SWEEP.yaml --db results.sqlite writes one).");
  x_ = new QComboBox;
  x_->setObjectName("sweep.x");
  y_ = new QComboBox;
  y_->setObjectName("sweep.y");
  pareto_ = new QCheckBox("Pareto front");
  pareto_->setToolTip("The points no other point beats in both x and y (both minimised).");
  row->addWidget(open);
  row->addWidget(new QLabel("x:"));
  row->addWidget(x_, 1);
  row->addWidget(new QLabel("y:"));
  row->addWidget(y_, 1);
  row->addWidget(pareto_);
  v->addLayout(row);
  v->addWidget(source_);
  view_ = new QChartView;
  view_->setRenderHint(QPainter::Antialiasing);
  v->addWidget(view_, 1);
  connect(x_, &QComboBox::currentIndexChanged, this, [this] { replot(); });
  connect(y_, &QComboBox::currentIndexChanged, this, [this] { replot(); });
  connect(pareto_, &QCheckBox::toggled, this, [this] { replot(); });
}

std::optional<QString> SweepView::open(const QString& path) {
  try {
    results_ = SweepResults::open(path.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  int failed = 0;
  for (const SweepPoint& p : results_->points()) failed += p.status != "ok";
  source_->setText(QStringLiteral("%1: %2 points (%3 failed). Click a point to load its scenario.")
                       .arg(path)
                       .arg(results_->points().size())
                       .arg(failed));
  const QSignalBlocker bx(x_), by(y_);
  x_->clear();
  y_->clear();
  for (const std::string& f : results_->numeric_fields()) {
    x_->addItem(QString::fromStdString(f));
    y_->addItem(QString::fromStdString(f));
  }
  for (const std::string& f : results_->axes()) {
    if (x_->findText(QString::fromStdString(f)) < 0) x_->addItem(QString::fromStdString(f));  // text axes
  }
  x_->setCurrentIndex(0);
  for (const char* preferred : {"time_to_train_s", "step_time_s"}) {
    if (const int i = y_->findText(preferred); i >= 0) {
      y_->setCurrentIndex(i);
      break;
    }
  }
  replot();
  return std::nullopt;
}

void SweepView::set_fields(const QString& x, const QString& y) {
  const QSignalBlocker bx(x_), by(y_);
  x_->setCurrentIndex(x_->findText(x));
  y_->setCurrentIndex(y_->findText(y));
  replot();
}

void SweepView::set_pareto(bool on) { pareto_->setChecked(on); }

void SweepView::activate_point(int i) {
  if (i < 0 || i >= plotted_count()) return;
  const SweepPoint& p = *plotted_[static_cast<std::size_t>(i)];
  Q_EMIT point_activated(QString::fromStdString(p.label), QString::fromStdString(p.scenario_yaml));
}

void SweepView::replot() {
  plotted_.clear();
  front_count_ = 0;
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  if (!results_ || x_->currentIndex() < 0 || y_->currentIndex() < 0) {
    chart->setTitle("Open a sweep results database to plot it.");
    QChart* old = view_->chart();
    view_->setChart(chart);
    delete old;
    return;
  }
  const std::string xf = x_->currentText().toStdString();
  const std::string yf = y_->currentText().toStdString();
  chart->setTitle(QString::fromStdString(yf + " against " + xf));
  auto* points = new QScatterSeries;
  points->setName("sweep points");
  points->setMarkerSize(9);
  std::vector<std::pair<double, double>> xy;
  for (const SweepPoint& p : results_->points()) {
    const auto x = results_->value(p, xf);
    const auto y = results_->value(p, yf);
    if (p.status != "ok" || !x || !y || !std::isfinite(*x) || !std::isfinite(*y)) continue;
    xy.emplace_back(*x, *y);
    plotted_.push_back(&p);
  }
  double x_max = 0, y_max = 0;
  for (const auto& [x, y] : xy) {
    x_max = std::max(x_max, std::fabs(x));
    y_max = std::max(y_max, std::fabs(y));
  }
  chart->setTitle(chart->title() + QStringLiteral(" (%1 of %2 points have both)").arg(xy.size()).arg(results_->points().size()));
  const bool x_text = !results_->categories(xf).empty();
  const auto [x_div, x_unit] = x_text ? std::pair{1.0, QString()} : axis_scale(xf, x_max);
  const auto [y_div, y_unit] = axis_scale(yf, y_max);
  for (auto& [x, y] : xy) {
    x /= x_div;
    y /= y_div;
    points->append(x, y);
  }
  chart->addSeries(points);
  connect(points, &QScatterSeries::clicked, this, [this, xy](const QPointF& at) {
    // The clicked marker: the plotted point nearest to where the click landed.
    int best = -1;
    double best_d = 0;
    for (std::size_t i = 0; i < xy.size(); ++i) {
      const double d = std::hypot(xy[i].first - at.x(), xy[i].second - at.y());
      if (best < 0 || d < best_d) {
        best = static_cast<int>(i);
        best_d = d;
      }
    }
    activate_point(best);
  });
  // Hovering a point names it (the sweep's label: its axis values).
  connect(points, &QScatterSeries::hovered, this, [this, xy](const QPointF& at, bool on) {
    if (!on) return QToolTip::hideText();
    for (std::size_t i = 0; i < xy.size(); ++i) {
      if (std::fabs(xy[i].first - at.x()) <= 1e-9 * std::fabs(at.x()) + 1e-12 &&
          std::fabs(xy[i].second - at.y()) <= 1e-9 * std::fabs(at.y()) + 1e-12) {
        QToolTip::showText(QCursor::pos(), QString::fromStdString(plotted_[i]->label));
        return;
      }
    }
  });
  QLineSeries* front = nullptr;
  if (pareto_->isChecked() && !xy.empty()) {
    front = new QLineSeries;
    front->setName("Pareto front (both minimised)");
    front->setPointsVisible(true);
    QPen pen(QColor("#c0392b"));
    pen.setWidth(2);
    front->setPen(pen);
    const std::vector<std::size_t> idx = pareto_front(xy);
    for (std::size_t i : idx) front->append(xy[i].first, xy[i].second);
    front_count_ = static_cast<int>(idx.size());
    chart->addSeries(front);
  }
  const std::vector<std::string> cats = results_->categories(xf);
  QAbstractAxis* xa = nullptr;
  if (!cats.empty()) {
    auto* c = new QCategoryAxis;
    c->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    for (std::size_t i = 0; i < cats.size(); ++i) c->append(QString::fromStdString(cats[i]), static_cast<double>(i));
    c->setRange(-0.5, static_cast<double>(cats.size()) - 0.5);
    xa = c;
  } else {
    auto* vx = new QValueAxis;
    vx->setLabelFormat("%g");
    xa = vx;
  }
  xa->setTitleText(QString::fromStdString(xf) + (x_unit.isEmpty() ? QString() : " (" + x_unit + ")"));
  auto* ya = new QValueAxis;
  ya->setLabelFormat("%g");
  ya->setTitleText(QString::fromStdString(yf) + (y_unit.isEmpty() ? QString() : " (" + y_unit + ")"));
  chart->addAxis(xa, Qt::AlignBottom);
  chart->addAxis(ya, Qt::AlignLeft);
  for (QAbstractSeries* s : chart->series()) {
    s->attachAxis(xa);
    s->attachAxis(ya);
  }
  if (cats.empty() && !xy.empty()) {
    auto [lo, hi] = std::minmax_element(xy.begin(), xy.end());
    const double pad = (hi->first - lo->first) * 0.05 + (hi->first == lo->first ? 1 : 0);
    static_cast<QValueAxis*>(xa)->setRange(lo->first - pad, hi->first + pad);
    static_cast<QValueAxis*>(xa)->applyNiceNumbers();
  }
  if (!xy.empty()) {
    double lo = xy.front().second, hi = lo;
    for (const auto& p : xy) {
      lo = std::min(lo, p.second);
      hi = std::max(hi, p.second);
    }
    const double pad = (hi - lo) * 0.08 + (hi == lo ? std::fabs(hi) * 0.1 + 1 : 0);
    ya->setRange(lo - pad, hi + pad);
    ya->applyNiceNumbers();
  }
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
}

}  // namespace cs::gui
