// The Schedule tab on the shipped day-serve-night-train schedule: what it shows is what cs::api::schedule returns
// for the same file (the table's rows, the hourly series, the summary), and a bad file's error is shown, not
// thrown.
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QTableWidget>
#include <QTest>

#include <filesystem>
#include <fstream>

#include "gui/schedule_view.hpp"

class ScheduleViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void shows_what_the_api_returns() {
    const QString file = QStringLiteral(CS_SOURCE_DIR) + "/scenarios/schedules/day-serve-night-train-32xh100.yaml";
    cs::gui::ScheduleView view;
    view.resize(1200, 900);
    view.show();
    QVERIFY(view.open(file));
    QVERIFY(!view.open(file));  // one at a time
    view.wait();
    QVERIFY(view.run().has_value());
    const cs::ScheduleRun api = cs::api::schedule(file.toStdString());
    const auto& r = view.run()->result;
    QCOMPARE(r.jobs.size(), api.result.jobs.size());
    QCOMPARE(r.services[0].slo_attainment, api.result.services[0].slo_attainment);
    // One row per job and service, the co-located service marked.
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), static_cast<int>(r.jobs.size() + r.services.size()));
    QCOMPARE(t->item(0, 0)->text(), QString("gpt3-13b-nightly"));
    QCOMPARE(t->item(1, 1)->text(), QString("serving (co-located)"));
    QVERIFY(t->item(1, 5)->text().startsWith("86.7"));
    // Hourly series: allocated, busy, power and the circuit, one point per hour.
    const auto series = view.hours_chart()->chart()->series();
    QCOMPARE(series.size(), 4);
    auto* alloc = qobject_cast<QLineSeries*>(series[0]);
    QVERIFY(alloc != nullptr);
    QCOMPARE(alloc->count(), static_cast<int>(r.hours.size()));
    QCOMPARE(alloc->at(3).y(), 100 * r.hours[3].allocated_fraction);
    QVERIFY(view.summary_text().contains("isolation time-slicing"));
    QVERIFY(view.summary_text().contains("chat-llama3-70b met its SLO for 86.7"));
  }

  void a_bad_file_shows_its_error() {
    const auto path = (std::filesystem::temp_directory_path() / "cs_gui_bad_schedule.yaml").string();
    std::ofstream(path) << "format_version: 1\nname: bad\npolicy: lottery\n";
    cs::gui::ScheduleView view;
    QVERIFY(view.open(QString::fromStdString(path)));
    view.wait();
    QVERIFY(!view.run().has_value());
    QVERIFY(view.summary_text().startsWith("Schedule failed: "));
    QVERIFY(view.summary_text().contains("cs_gui_bad_schedule.yaml"));
  }
};

QTEST_MAIN(ScheduleViewTest)
#include "schedule_view_test.moc"
