#include "gui/sweep_view.hpp"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QPushButton>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "gui/field_labels.hpp"
#include "gui/plot_axis.hpp"

namespace cs::gui {
namespace {

/// The axis values of a sweep label ("model.preset=gpt3-13b, parallelism={tp: 8, dp: 4}, cluster.profile=h200"),
/// split at the ", " between axes, not at those inside a value's braces or brackets.
QStringList sweep_label_parts(const std::string& label) {
  QStringList out;
  std::string part;
  int depth = 0;
  for (std::size_t i = 0; i < label.size(); ++i) {
    const char c = label[i];
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth == 0 && i + 1 < label.size() && label[i + 1] == ' ') {
      out << QString::fromStdString(part);
      part.clear();
      ++i;
      continue;
    }
    part += c;
  }
  if (!part.empty()) out << QString::fromStdString(part);
  return out;
}

/// Lists `field` in a picker by its words (with its key where another field has the same words); the key is
/// the item's data and tooltip.
void add_field_choice(QComboBox* box, const std::string& field) {
  const QString key = QString::fromStdString(field);
  QString text = field_choice_text(field);
  if (box->findText(text) >= 0) text += " [" + key + "]";
  box->addItem(text, key);
  box->setItemData(box->count() - 1, key, Qt::ToolTipRole);
}

/// Each series its own marker shape, outlined in its colour over a faint fill of it, so a point on top of another
/// series' point (an H200 step as fast as the H100's) leaves both outlines visible. Call after the chart has
/// given the series its colour.
void style_series_marker(QScatterSeries* series, std::size_t k) {
  static constexpr std::array shapes{QScatterSeries::MarkerShapeCircle, QScatterSeries::MarkerShapeRectangle,
                                     QScatterSeries::MarkerShapeTriangle, QScatterSeries::MarkerShapeRotatedRectangle,
                                     QScatterSeries::MarkerShapePentagon, QScatterSeries::MarkerShapeStar};
  const QColor colour = series->color();
  QColor fill = colour;
  fill.setAlpha(70);
  QPen pen(colour);
  pen.setWidthF(2);
  series->setMarkerShape(shapes[k % shapes.size()]);
  series->setMarkerSize(12);
  series->setBrush(fill);
  series->setPen(pen);
}

/// A series' points: their index among the plotted points and where they sit on the chart (in the axes' units).
struct SeriesPoint {
  std::size_t plotted;
  double x;
  double y;
};

/// Distance on the chart as the eye sees it: along a log axis in decades, each axis as a share of its span.
struct PlotSpace {
  bool x_log = false;
  bool y_log = false;
  double x_span = 1;
  double y_span = 1;

  [[nodiscard]] double distance(const SeriesPoint& p, const QPointF& at) const {
    const auto along = [](double a, double b, bool log) { return log && a > 0 && b > 0 ? std::log10(a / b) : a - b; };
    return std::hypot(along(p.x, at.x(), x_log) / x_span, along(p.y, at.y(), y_log) / y_span);
  }
};

}  // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent) {
  setObjectName("sweep");
  auto* v = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  auto* open = new QPushButton("Open results database...");
  connect(open, &QPushButton::clicked, this, &SweepView::open_requested);
  source_ = new QLabel("No sweep open (clustersim sweep SWEEP.yaml --db results.sqlite writes one).");
  top->addWidget(open);
  top->addWidget(source_, 1);
  auto* row = new QHBoxLayout;
  x_ = new QComboBox;
  x_->setObjectName("sweep.x");
  y_ = new QComboBox;
  y_->setObjectName("sweep.y");
  series_ = new QComboBox;
  series_->setObjectName("sweep.series");
  series_->setToolTip("One series, with its own colour and legend entry, per value of this sweep axis.");
  pareto_ = new QCheckBox("Pareto front");
  pareto_->setToolTip("The points no other point beats in both x and y (both minimised).");
  row->addWidget(new QLabel("x:"));
  row->addWidget(x_, 2);
  row->addWidget(new QLabel("y:"));
  row->addWidget(y_, 2);
  row->addWidget(new QLabel("series by:"));
  row->addWidget(series_, 1);
  row->addWidget(pareto_);
  v->addLayout(top);
  v->addLayout(row);
  view_ = new QChartView;
  view_->setRenderHint(QPainter::Antialiasing);
  v->addWidget(view_, 1);
  connect(x_, &QComboBox::currentIndexChanged, this, [this] {
    fill_series_choices();
    replot();
  });
  connect(y_, &QComboBox::currentIndexChanged, this, [this] { replot(); });
  connect(series_, &QComboBox::currentIndexChanged, this, [this] {
    chosen_series_ = series_->currentData().toString().toStdString();
    replot();
  });
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
  source_->setText(QStringLiteral("%1: %2 points (%3 failed). Hover a point for its scenario, click it to load it.")
                       .arg(path)
                       .arg(results_->points().size())
                       .arg(failed));
  chosen_series_.reset();
  const QSignalBlocker bx(x_), by(y_);
  x_->clear();
  y_->clear();
  for (const std::string& f : results_->numeric_fields()) {
    add_field_choice(x_, f);
    add_field_choice(y_, f);
  }
  for (const std::string& f : results_->axes()) {
    if (x_->findData(QString::fromStdString(f)) < 0) add_field_choice(x_, f);  // text axes
  }
  // x: the first numeric axis that varies (the GPU count of a scaling sweep), else the first axis that does.
  const auto distinct = [this](const std::string& axis) {
    std::set<double> values;
    for (const SweepPoint& p : results_->points()) {
      if (const auto v = results_->value(p, axis)) values.insert(*v);
    }
    return values.size();
  };
  int x_index = 0;
  for (const bool numeric_only : {true, false}) {
    const auto& axes = results_->axes();
    const auto it = std::find_if(axes.begin(), axes.end(), [&](const std::string& a) {
      return distinct(a) > 1 && (!numeric_only || results_->categories(a).empty());
    });
    if (it != axes.end()) {
      x_index = std::max(0, x_->findData(QString::fromStdString(*it)));
      break;
    }
  }
  x_->setCurrentIndex(x_index);
  for (const char* preferred : {"time_to_train_s", "step_time_s"}) {
    if (const int i = y_->findData(QString(preferred)); i >= 0) {
      y_->setCurrentIndex(i);
      break;
    }
  }
  fill_series_choices();
  replot();
  return std::nullopt;
}

void SweepView::set_fields(const QString& x, const QString& y) {
  {
    const QSignalBlocker bx(x_), by(y_);
    x_->setCurrentIndex(x_->findData(x));
    y_->setCurrentIndex(y_->findData(y));
  }
  fill_series_choices();
  replot();
}

void SweepView::set_series_by(const QString& axis) {
  chosen_series_ = axis == "none" ? std::string() : axis.toStdString();
  fill_series_choices();
  replot();
}

QString SweepView::series_by() const { return series_->currentData().toString(); }

void SweepView::set_pareto(bool on) { pareto_->setChecked(on); }

QChart* SweepView::chart() const { return view_->chart(); }

std::string SweepView::x_field() const { return x_->currentData().toString().toStdString(); }
std::string SweepView::y_field() const { return y_->currentData().toString().toStdString(); }

QString SweepView::axis_value_text(const SweepPoint& p, const std::string& axis) const {
  if (const auto t = p.texts.find(axis); t != p.texts.end()) return QString::fromStdString(t->second);
  if (const auto n = p.numbers.find(axis); n != p.numbers.end()) return format_field(axis, n->second);
  return QStringLiteral("(not set)");
}

std::string SweepView::default_series_axis() const {
  if (!results_) return {};
  const std::string xf = x_field();
  const auto& axes = results_->axes();
  const bool x_is_axis = std::find(axes.begin(), axes.end(), xf) != axes.end();
  for (const std::string& axis : axes) {
    if (axis == xf) continue;
    std::set<double> values;
    std::map<double, double> at_x;  // x value -> this axis's value, while x determines it
    bool x_determines = true;
    for (const SweepPoint& p : results_->points()) {
      const auto a = results_->value(p, axis);
      if (p.status != "ok" || !a) continue;
      values.insert(*a);
      if (const auto x = results_->value(p, xf)) {
        const auto [it, fresh] = at_x.emplace(*x, *a);
        x_determines = x_determines && (fresh || it->second == *a);
      }
    }
    if (values.size() > 1 && !(x_is_axis && x_determines)) return axis;
  }
  return {};
}

void SweepView::fill_series_choices() {
  const QSignalBlocker block(series_);
  series_->clear();
  series_->addItem("none", QString());
  if (!results_) return;
  const std::string xf = x_field();
  for (const std::string& axis : results_->axes()) {
    if (axis != xf) add_field_choice(series_, axis);
  }
  const int i = series_->findData(QString::fromStdString(chosen_series_.value_or(default_series_axis())));
  series_->setCurrentIndex(std::max(i, 0));
}

void SweepView::activate_point(int i) {
  if (i < 0 || i >= plotted_count()) return;
  const SweepPoint& p = *plotted_[static_cast<std::size_t>(i)];
  Q_EMIT point_activated(QString::fromStdString(p.label), QString::fromStdString(p.scenario_yaml));
}

QString SweepView::point_text(int i) const {
  if (!results_ || i < 0 || i >= plotted_count()) return {};
  const SweepPoint& p = *plotted_[static_cast<std::size_t>(i)];
  QStringList lines = sweep_label_parts(p.label);
  for (const std::string& f : {x_field(), y_field()}) {
    const QString words = field_label(f).words;
    if (const auto t = p.texts.find(f); t != p.texts.end()) {
      lines << words + ": " + QString::fromStdString(t->second);
    } else {
      const auto v = results_->value(p, f);
      lines << words + ": " + (v ? format_field(f, *v) : QStringLiteral("-"));
    }
  }
  return lines.join('\n');
}

void SweepView::replot() {
  plotted_.clear();
  front_count_ = 0;
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  const auto show_chart = [this, chart] {
    QChart* old = view_->chart();
    view_->setChart(chart);
    delete old;
  };
  if (!results_ || x_->currentIndex() < 0 || y_->currentIndex() < 0) {
    chart->setTitle("Open a sweep results database to plot it.");
    show_chart();
    return;
  }
  const std::string xf = x_field();
  const std::string yf = y_field();
  const std::string sf = series_by().toStdString();
  std::vector<double> xs, ys;
  for (const SweepPoint& p : results_->points()) {
    const auto x = results_->value(p, xf);
    const auto y = results_->value(p, yf);
    if (p.status != "ok" || !x || !y || !std::isfinite(*x) || !std::isfinite(*y)) continue;
    xs.push_back(*x);
    ys.push_back(*y);
    plotted_.push_back(&p);
  }
  const FieldLabel x_label = field_label(xf);
  const FieldLabel y_label = field_label(yf);
  const std::vector<std::string> cats = results_->categories(xf);
  const auto largest = [](const std::vector<double>& v) {
    double m = 0;
    for (const double a : v) m = std::max(m, std::fabs(a));
    return m;
  };
  const AxisUnit x_unit = cats.empty() ? axis_unit(x_label, largest(xs)) : AxisUnit{};
  const AxisUnit y_unit = axis_unit(y_label, largest(ys));
  for (double& x : xs) x /= x_unit.divisor;
  for (double& y : ys) y /= y_unit.divisor;
  const AxisRange x_range = choose_axis_range(xs, 0.05, x_label.quantity == Quantity::count);
  const AxisRange y_range = choose_axis_range(ys, 0.08, y_label.quantity == Quantity::count);

  // "time to train against GPUs, by GPU type", and how many points lack a value where some do.
  QString title = y_label.words + " against " + x_label.words;
  if (!sf.empty()) title += ", by " + field_label(sf).words;
  if (xs.size() < results_->points().size()) {
    title += QStringLiteral(" (%1 of %2 points have both)").arg(xs.size()).arg(results_->points().size());
  }
  chart->setTitle(title);

  // One series per value of the series axis, ordered by value (texts in first-seen order: SweepResults::value).
  std::map<double, std::vector<SeriesPoint>> groups;
  for (std::size_t i = 0; i < plotted_.size(); ++i) {
    const auto v = sf.empty() ? std::optional<double>(0.0) : results_->value(*plotted_[i], sf);
    groups[v.value_or(std::numeric_limits<double>::infinity())].push_back({i, xs[i], ys[i]});
  }
  PlotSpace space;
  space.x_log = x_range.log;
  space.y_log = y_range.log;
  const auto span = [](const std::vector<double>& v, bool log) {
    if (v.empty()) return 1.0;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const double s = log ? std::log10(*hi / *lo) : *hi - *lo;
    return s > 0 ? s : 1.0;
  };
  space.x_span = span(xs, space.x_log);
  space.y_span = span(ys, space.y_log);
  std::size_t k = 0;
  for (const auto& [value, members] : groups) {
    auto* series = new QScatterSeries;
    series->setName(sf.empty() ? QStringLiteral("sweep points") : axis_value_text(*plotted_[members.front().plotted], sf));
    series->setMarkerSize(9);
    for (const SeriesPoint& m : members) series->append(m.x, m.y);
    chart->addSeries(series);
    if (!sf.empty()) style_series_marker(series, k++);
    // The marker under the mouse: the series' point nearest to where the event landed.
    const auto nearest = [members, space](const QPointF& at) {
      const auto best = std::min_element(members.begin(), members.end(), [&](const SeriesPoint& a, const SeriesPoint& b) {
        return space.distance(a, at) < space.distance(b, at);
      });
      return static_cast<int>(best->plotted);
    };
    connect(series, &QScatterSeries::clicked, this, [this, nearest](const QPointF& at) { activate_point(nearest(at)); });
    connect(series, &QScatterSeries::hovered, this, [this, nearest](const QPointF& at, bool on) {
      if (!on) return QToolTip::hideText();
      QToolTip::showText(QCursor::pos(), point_text(nearest(at)));
    });
  }
  if (pareto_->isChecked() && !xs.empty()) {
    auto* front = new QLineSeries;
    front->setName("Pareto front (both minimised)");
    front->setPointsVisible(true);
    QPen pen(QColor("#c0392b"));
    pen.setWidth(2);
    front->setPen(pen);
    std::vector<std::pair<double, double>> xy;
    for (std::size_t i = 0; i < xs.size(); ++i) xy.emplace_back(xs[i], ys[i]);
    const std::vector<std::size_t> idx = pareto_front(xy);
    for (const std::size_t i : idx) front->append(xy[i].first, xy[i].second);
    front_count_ = static_cast<int>(idx.size());
    chart->addSeries(front);
  }
  QAbstractAxis* xa = nullptr;
  QCategoryAxis* category_axis = nullptr;
  if (!cats.empty()) {
    auto* c = category_axis = new QCategoryAxis;
    c->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    for (std::size_t i = 0; i < cats.size(); ++i) c->append(QString::fromStdString(cats[i]), static_cast<double>(i));
    c->setTitleText(x_label.words);
    xa = c;
  } else {
    xa = make_axis(x_range, axis_title(x_label, x_unit));
  }
  QAbstractAxis* ya = make_axis(y_range, axis_title(y_label, y_unit));
  chart->addAxis(xa, Qt::AlignBottom);
  chart->addAxis(ya, Qt::AlignLeft);
  for (QAbstractSeries* s : chart->series()) {
    s->attachAxis(xa);
    s->attachAxis(ya);
  }
  // Attaching resizes the axes to the series: the ranges chosen from the data go on afterwards.
  if (category_axis != nullptr) category_axis->setRange(-0.5, static_cast<double>(cats.size()) - 0.5);
  else apply_axis_range(xa, x_range);
  apply_axis_range(ya, y_range);
  show_chart();
}

}  // namespace cs::gui
