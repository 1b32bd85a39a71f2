// The Sweep tab's plot read as a person reads it, on results databases the real `clustersim sweep` writes (the
// binary, into SQLite) for two small sweeps of the GPT-3 1.3B scenario with weak scaling (4 sequences per GPU):
//   scaling: cluster.gpus 8, 64, 512, 2048 (zipped with the global batch) x cluster.profile h100-sxm, h200;
//   small:   cluster.gpus 8, 16, 32, 64, 128 (zipped with the global batch), on H100 only.
// Axis titles are words with units, no range goes below zero when no value does, GPU counts spanning 8..2048 sit
// on a base-2 log axis, there is one series per value of the chosen second axis, and hovering a point shows its
// scenario in human units.
#include <QAbstractAxis>
#include <QChart>
#include <QFile>
#include <QLegendMarker>
#include <QLogValueAxis>
#include <QProcess>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QToolTip>
#include <QValueAxis>
#include <QtTest/QtTest>

#include <cmath>

#include "gui/field_labels.hpp"
#include "gui/human_units.hpp"
#include "gui/plot_axis.hpp"
#include "gui/sweep_results.hpp"
#include "gui/sweep_view.hpp"

using namespace cs::gui;

namespace {

/// The scatter series of the chart (the Pareto front is a line series and not among them).
std::vector<QScatterSeries*> scatter_series(QChart* chart) {
  std::vector<QScatterSeries*> out;
  for (QAbstractSeries* s : chart->series()) {
    if (auto* scatter = qobject_cast<QScatterSeries*>(s)) out.push_back(scatter);
  }
  return out;
}

QStringList series_names(QChart* chart) {
  QStringList out;
  for (QScatterSeries* s : scatter_series(chart)) out << s->name();
  return out;
}

/// min and max of a numeric axis (linear or log).
std::pair<double, double> axis_range(QAbstractAxis* axis) {
  if (auto* v = qobject_cast<QValueAxis*>(axis)) return {v->min(), v->max()};
  if (auto* l = qobject_cast<QLogValueAxis*>(axis)) return {l->min(), l->max()};
  return {std::nan(""), std::nan("")};
}

QAbstractAxis* x_axis(QChart* chart) { return chart->axes(Qt::Horizontal).front(); }
QAbstractAxis* y_axis(QChart* chart) { return chart->axes(Qt::Vertical).front(); }

}  // namespace

class SweepViewTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString scaling_;
  QString small_;

  /// Writes a sweep over the 1.3B scenario with `axes` and runs `clustersim sweep` on it; the database's path.
  void run_sweep(const QString& name, const QByteArray& axes, QString& db) {
    const QString sweep = dir_.filePath(name + ".yaml");
    db = dir_.filePath(name + ".sqlite");
    QFile f(sweep);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("format_version: 1\nname: " + name.toUtf8() +
            "\nbase: " CS_SOURCE_DIR "/scenarios/gpt3-1.3b-8xh100-dp.yaml\naxes:\n" + axes);
    f.close();
    QProcess p;
    p.start(CLUSTERSIM_BIN, {"sweep", sweep, "--db", db, "-j", "2"});
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    run_sweep("scaling",
              "  - cluster.gpus: [8, 64, 512, 2048]\n"
              "    training.global_batch: [32, 256, 2048, 8192]\n"
              "  - cluster.profile: [h100-sxm, h200]\n",
              scaling_);
    run_sweep("small",
              "  - cluster.gpus: [8, 16, 32, 64, 128]\n"
              "    training.global_batch: [32, 64, 128, 256, 512]\n",
              small_);
  }

  void axis_titles_are_words_with_units() {
    SweepView view;
    QVERIFY(!view.open(scaling_));
    view.set_fields("cluster.gpus", "time_to_train_s");
    // 26e9 tokens at 65,536 tokens per 0.15 s step is about 16.5 h on 8 GPUs: under two days, so hours.
    QCOMPARE(x_axis(view.chart())->titleText(), QString("GPUs"));
    QCOMPARE(y_axis(view.chart())->titleText(), QString("time to train (h)"));
    QCOMPARE(view.chart()->title(), QString("time to train against GPUs, by GPU type"));
    view.set_fields("cluster.gpus", "mfu");
    QCOMPARE(y_axis(view.chart())->titleText(), QString("MFU (%)"));
    view.set_fields("cluster.gpus", "tco.tco_usd_per_year");  // 2,048 H100s own for tens of $M a year
    QCOMPARE(y_axis(view.chart())->titleText(), QString("TCO per year ($M)"));
    view.set_fields("cluster.gpus", "power.facility_average_w");  // about 9 MW at 2,048 GPUs
    QCOMPARE(y_axis(view.chart())->titleText(), QString("average power at the meter (MW)"));
    view.set_fields("cluster.profile", "step_time_s");  // about 0.15 s a step: milliseconds
    QCOMPARE(x_axis(view.chart())->titleText(), QString("GPU type"));
    QCOMPARE(y_axis(view.chart())->titleText(), QString("step time (ms)"));
    // A field outside the table: its dotted key, the unit its suffix names.
    QCOMPARE(axis_title(field_label("reliability.checkpoint_write_s"),
                       axis_unit(field_label("reliability.checkpoint_write_s"), 30.0)),
             QString("reliability.checkpoint_write (s)"));
    QCOMPARE(axis_title(field_label("tco.run_cost_usd"), axis_unit(field_label("tco.run_cost_usd"), 4.1e5)),
             QString("cost of the training run ($k)"));
    // A service's results: a rate is not a duration (`_per_s`), a latency statistic reads in words.
    const auto title = [](const char* field, double largest) {
      return axis_title(field_label(field), axis_unit(field_label(field), largest));
    };
    QCOMPARE(title("serving.output_tokens_per_s", 15306.0), QString("output tokens (k tokens/s)"));
    QCOMPARE(title("serving.ttft_s.p99", 321.8), QString("time to first token, p99 (min)"));
    QCOMPARE(title("serving.tpot_s.p50", 0.024), QString("time per output token, p50 (ms)"));
    QCOMPARE(title("serving.queue.some_per_s", 12.0), QString("serving.queue.some (/s)"));
    QCOMPARE(format_field("serving.ttft_s.p99", 0.401), QString("401 ms"));
    QCOMPARE(field_choice_text("serving.e2e_s.p90"), QString("end-to-end latency, p90"));
  }

  // Every value of both sweeps is >= 0. The old axis padded 8 % of the span below the smallest value: on the
  // small sweep, time to train runs from about 1.0 h (128 GPUs) to 16.5 h (8 GPUs), so 1.0 - 0.08 x 15.5 = -0.2 h.
  void no_range_below_zero_when_no_value_is() {
    const QStringList fields{"cluster.gpus", "step_time_s", "time_to_train_s", "tco.run_cost_usd",
                             "power.facility_average_w", "mfu", "peak_memory_bytes", "tco.facility_capex_usd"};
    for (const QString& db : {small_, scaling_}) {
      SweepView view;
      QVERIFY(!view.open(db));
      view.set_pareto(true);
      for (const QString& x : fields) {
        for (const QString& y : fields) {
          view.set_fields(x, y);
          QVERIFY(view.plotted_count() > 0);
          for (QAbstractAxis* axis : {x_axis(view.chart()), y_axis(view.chart())}) {
            const auto [lo, hi] = axis_range(axis);
            QVERIFY2(lo >= 0, qPrintable(x + " / " + y + ": " + axis->titleText() + " from " + QString::number(lo)));
            QVERIFY(hi > lo);
          }
          // Every point inside the ranges.
          const auto [x_lo, x_hi] = axis_range(x_axis(view.chart()));
          const auto [y_lo, y_hi] = axis_range(y_axis(view.chart()));
          for (QScatterSeries* s : scatter_series(view.chart())) {
            for (const QPointF& p : s->points()) {
              QVERIFY2(p.x() >= x_lo && p.x() <= x_hi && p.y() >= y_lo && p.y() <= y_hi, qPrintable(x + " / " + y));
            }
          }
        }
      }
    }
    // The small sweep's time to train (16x between its ends) stays linear and starts at zero.
    SweepView view;
    QVERIFY(!view.open(small_));
    view.set_fields("cluster.gpus", "time_to_train_s");
    auto* y = qobject_cast<QValueAxis*>(y_axis(view.chart()));
    QVERIFY(y != nullptr);
    QCOMPARE(y->min(), 0.0);
    QVERIFY(qobject_cast<QValueAxis*>(x_axis(view.chart())) != nullptr);  // 8..128 GPUs: 1.2 decades, linear
  }

  void gpu_counts_spanning_decades_get_a_log_axis() {
    SweepView view;
    QVERIFY(!view.open(scaling_));
    view.set_fields("cluster.gpus", "time_to_train_s");
    auto* x = qobject_cast<QLogValueAxis*>(x_axis(view.chart()));
    QVERIFY(x != nullptr);
    // 8..2048 is 2^3..2^11: nine powers of two, each a labelled tick, written as plain numbers.
    QCOMPARE(x->base(), 2.0);
    QVERIFY(x->min() > 0 && x->min() <= 8 && x->max() >= 2048);
    QCOMPARE(static_cast<int>(std::floor(std::log2(x->max())) - std::ceil(std::log2(x->min()))) + 1, 9);
    QCOMPARE(x->labelFormat(), QString("%.0f"));
    QCOMPARE(QString::asprintf(x->labelFormat().toUtf8().constData(), 2048.0), QString("2048"));
    // Time to train falls 256x with weak scaling: log too.
    QVERIFY(qobject_cast<QLogValueAxis*>(y_axis(view.chart())) != nullptr);

    // The choice by itself: 8..16,384 GPUs would be twelve powers of two, so every third (8, 64, 512, 4096).
    const AxisRange wide = choose_axis_range({8, 64, 512, 4096, 16384});
    QVERIFY(wide.log);
    QCOMPARE(wide.base, 8.0);
    // 0.6 to 22 days (36x, past 10^1.5 = 31.6x): six powers of two, labelled 1, 2, 4, 8, 16 and so on.
    const AxisRange days = choose_axis_range({0.6, 3.0, 22.0});
    QVERIFY(days.log);
    QCOMPARE(days.base, 2.0);
    // 1..30 (30x) stays linear, from zero: 1 - 0.05 x 29 = -0.45 is clamped to 0; the top is 30 + 1.45; a fifth
    // of 31.45 is 6.3, whose next nice step is 10: 0, 10, 20, 30, 40.
    const AxisRange linear = choose_axis_range({1, 30});
    QVERIFY(!linear.log);
    QCOMPARE(linear.min, 0.0);
    QCOMPARE(linear.max, 40.0);
    QCOMPARE(linear.ticks, 5);
    // Negative data keeps its padding below.
    QVERIFY(choose_axis_range({-5, 5}).min < -5);
  }

  void one_series_per_value_of_the_second_axis() {
    SweepView view;
    QVERIFY(!view.open(scaling_));
    view.set_fields("cluster.gpus", "time_to_train_s");
    // The default: the first other axis with several values that the GPU count does not already fix (the global
    // batch is zipped with it).
    QCOMPARE(view.series_by(), QString("cluster.profile"));
    QCOMPARE(series_names(view.chart()), QStringList({"h100-sxm", "h200"}));
    for (QScatterSeries* s : scatter_series(view.chart())) {
      QCOMPARE(s->count(), 4);
      QVERIFY(view.chart()->legend()->markers(s).front()->isVisible());
    }
    QCOMPARE(view.plotted_count(), 8);
    view.set_series_by("training.global_batch");
    QCOMPARE(series_names(view.chart()),
             QStringList({"32 sequences", "256 sequences", "2,048 sequences", "8,192 sequences"}));
    view.set_series_by("none");
    QCOMPARE(view.series_by(), QString());
    QCOMPARE(series_names(view.chart()), QStringList({"sweep points"}));
    QCOMPARE(scatter_series(view.chart()).front()->count(), 8);
    // The choice stays while y changes; with the GPU type on x, the default splits by GPU count.
    view.set_fields("cluster.gpus", "mfu");
    QCOMPARE(view.series_by(), QString());
    SweepView other;
    QVERIFY(!other.open(scaling_));
    other.set_fields("cluster.profile", "step_time_s");
    QCOMPARE(other.series_by(), QString("cluster.gpus"));
    QCOMPARE(series_names(other.chart()), QStringList({"8", "64", "512", "2,048"}));
    // The Pareto front spans every series.
    other.set_pareto(true);
    other.set_fields("step_time_s", "tco.run_cost_usd");
    QCOMPARE(other.plotted_count(), 8);
    QVERIFY(other.front_count() >= 1);
  }

  void hovering_a_point_shows_its_scenario() {
    SweepView view;
    QVERIFY(!view.open(scaling_));
    view.set_fields("cluster.gpus", "time_to_train_s");
    // Point 3 in the sweep's order: 64 GPUs on H200.
    const SweepResults results = SweepResults::open(scaling_.toStdString());
    const SweepPoint& p = results.points()[3];
    QCOMPARE(QString::fromStdString(p.label),
             QString("cluster.gpus=64, training.global_batch=256, cluster.profile=h200"));
    const QString expected = QStringList({"cluster.gpus=64", "training.global_batch=256", "cluster.profile=h200",
                                          "GPUs: 64", "time to train: " + format_duration(p.numbers.at("time_to_train_s"))})
                                 .join('\n');
    QCOMPARE(view.point_text(3), expected);
    // As the mouse does it: the h200 series' second point (64 GPUs) reports a hover.
    QScatterSeries* h200 = scatter_series(view.chart()).back();
    QCOMPARE(h200->name(), QString("h200"));
    Q_EMIT h200->hovered(h200->at(1), true);
    QTRY_COMPARE(QToolTip::text(), expected);
  }
};

QTEST_MAIN(SweepViewTest)
#include "sweep_view_test.moc"
