// The planner's Plan search tab driven as a user drives it: press Search, wait for the ranking while the window
// stays responsive, pick a row and use it. Expected values come from cs::api::search_plans called directly on
// the same scenario file, and the scenario written back is checked with the library's own loader. No modal
// dialog is ever opened.
#include <QElapsedTimer>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest/QtTest>

#include <fstream>
#include <sstream>

#include "gui/human_units.hpp"
#include "gui/main_window.hpp"
#include "gui/param_form.hpp"
#include "gui/plan_search_view.hpp"
#include "gui/scenario_document.hpp"
#include "sim/api/clustersim.hpp"

using namespace cs;
using namespace cs::gui;

namespace {

// 8 GPUs, GPT-3 1.3B: a few hundred valid plans, a replay takes tens of milliseconds.
const QString kEightGpus = QStringLiteral(CS_SOURCE_DIR "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
constexpr int kTopK = 4;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

class PlanSearchTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("clustersim-test");
    QCoreApplication::setApplicationName("clustersim-gui-search-test");
    QSettings().clear();
  }

  void search_ranks_like_the_api_and_a_row_is_used() {
    MainWindow w;
    w.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    QVERIFY(w.open_file(kEightGpus));
    PlanSearchView* view = w.plan_search_view();
    QVERIFY(view != nullptr);
    view->set_top_k(kTopK);

    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(view->search_button(), Qt::LeftButton);
    QVERIFY(view->busy());
    QVERIFY(!view->search_button()->isEnabled());
    // The event loop keeps running while the search works: the test's own waits go through it.
    QTRY_VERIFY_WITH_TIMEOUT(!view->busy() && view->table()->rowCount() > 0, 300000);
    const double gui_s = clock.elapsed() / 1000.0;
    qInfo("plan search in the GUI: %.2f s (search itself %.2f s: screen %.2f s, replay %.2f s)", gui_s,
          view->last_wall_seconds(), view->ranking().screen_s, view->ranking().replay_s);

    const api::PlanRanking expected =
        api::search_plans(slurp(kEightGpus.toStdString()), "expected", {.top_k = kTopK, .sample = 10, .threads = 0,
                                                                     .cancel = nullptr, .progress = {}});
    QCOMPARE(view->table()->rowCount(), static_cast<int>(expected.plans.size()));
    QCOMPARE(view->table()->rowCount(), kTopK);
    for (int row = 0; row < kTopK; ++row) {
      const api::RankedPlan& p = expected.plans[static_cast<std::size_t>(row)];
      QCOMPARE(view->table()->item(row, 0)->text(), QString::number(row + 1));
      QCOMPARE(view->table()->item(row, 1)->text(), QString::fromStdString(p.description));
      QCOMPARE(view->table()->item(row, 2)->text(), QString::number(p.step_s, 'f', 3));
      QCOMPARE(view->table()->item(row, 4)->text(), QString::number(100 * p.mfu, 'f', 1));
    }
    // Why the second lost to the first, as the API says it: a longer step, or a tie (ZeRO-1 and ZeRO-2 give the same
    // step where both fit).
    const QString why = view->table()->item(1, 6)->text();
    QCOMPARE(why, QString::fromStdString(expected.plans[1].why_lost));
    QVERIFY2(why.startsWith("+") || why.startsWith("ties with the one above"), qPrintable(why));
    QVERIFY2(view->summary_text().startsWith("Screened " + format_count(static_cast<double>(expected.screened)) +
                                             " plans in "),
             qPrintable(view->summary_text()));
    QVERIFY(view->summary_text().contains(QString::number(expected.spearman, 'f', 3)));

    // Pick the second plan and use it: the document, the form and the title follow.
    const api::RankedPlan& chosen = expected.plans[1];
    QVERIFY(!w.document().modified());
    view->table()->selectRow(1);
    QVERIFY(view->use_button()->isEnabled());
    QTest::mouseClick(view->use_button(), Qt::LeftButton);
    QVERIFY(w.document().modified());
    QVERIFY(w.isWindowModified());
    const ScenarioDocument& doc = w.document();
    QCOMPARE(doc.value("parallelism.tp").value_or(""), std::to_string(chosen.plan.plan.tp));
    QCOMPARE(doc.value("parallelism.pp").value_or(""), std::to_string(chosen.plan.plan.pp));
    QCOMPARE(doc.value("parallelism.dp").value_or(""), std::to_string(chosen.plan.plan.dp));
    QCOMPARE(doc.value("parallelism.zero").value_or(""), std::to_string(chosen.plan.plan.zero_stage));
    QCOMPARE(doc.value("training.micro_batch").value_or(""), std::to_string(chosen.plan.micro_batch));
    const auto* tp_field = qobject_cast<QLineEdit*>(w.form()->field_widget("parallelism.tp"));
    if (tp_field != nullptr) QCOMPARE(tp_field->text(), QString::number(chosen.plan.plan.tp));
    QVERIFY(w.form()->valid());
    QVERIFY(w.run_action()->isEnabled());

    // The text still loads, as that plan, and runs to the step time the ranking shows.
    const Scenario sc = load_scenario_text(doc.text(), "edited.yaml");
    QCOMPARE(sc.plan.tp, chosen.plan.plan.tp);
    QCOMPARE(sc.plan.pp, chosen.plan.plan.pp);
    QCOMPARE(sc.plan.dp, chosen.plan.plan.dp);
    QCOMPARE(sc.plan.virtual_stages, chosen.plan.plan.virtual_stages);
    QCOMPARE(sc.plan.zero_stage, chosen.plan.plan.zero_stage);
    QCOMPARE(sc.training.micro_batch, chosen.plan.micro_batch);
    QCOMPARE(sc.training.recompute, chosen.plan.recompute);
    QCOMPARE(api::run(sc).step.step_time.seconds(), chosen.step_s);

    // A double-click on the first row uses that one.
    const QRect cell = view->table()->visualItemRect(view->table()->item(0, 1));
    QTest::mouseDClick(view->table()->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(w.document().value("parallelism.pp").value_or(""), std::to_string(expected.plans[0].plan.plan.pp));
    QCOMPARE(w.document().value("training.micro_batch").value_or(""),
             std::to_string(expected.plans[0].plan.micro_batch));
  }

  void cancel_mid_search_leaves_the_window_usable() {
    MainWindow w;
    w.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    QVERIFY(w.open_file(kEightGpus));
    PlanSearchView* view = w.plan_search_view();
    view->set_top_k(100);  // the most the box allows: ~0.15 s of screening and replays on an idle machine
    QVERIFY(view->start());
    QVERIFY(!view->start());  // one search at a time
    view->cancel();           // at once: the screen alone takes longer than reaching this line
    QTRY_VERIFY_WITH_TIMEOUT(!view->busy(), 60000);
    QTest::qWait(50);
    QCOMPARE(view->summary_text(), QString("Search cancelled."));
    QCOMPARE(view->table()->rowCount(), 0);
    QVERIFY(view->search_button()->isEnabled());
    QVERIFY(!w.document().modified());
    // The window still runs scenarios and searches again.
    QVERIFY(w.run());
    w.wait_for_run();
    QVERIFY(w.current_run() != nullptr);
    view->set_top_k(2);
    QVERIFY(view->start());
    view->wait();
    QCOMPARE(view->table()->rowCount(), 2);
  }

  void a_scenario_that_does_not_load_is_not_searched() {
    MainWindow w;
    w.set_value("cluster.gpus", "8");  // no model, no topology
    QVERIFY(!w.plan_search_view()->start());
    QVERIFY(w.plan_search_view()->summary_text().startsWith("Cannot search: "));
    QVERIFY(!w.plan_search_view()->busy());
  }
};

QTEST_MAIN(PlanSearchTest)
#include "plan_search_test.moc"
