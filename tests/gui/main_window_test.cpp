// The planner driven as a user drives it: type into the generated form, press Run, read the numbers shown.
// Expected values come from the library called directly (cs::run_scenario) on the same edit made to the file
// with yaml-cpp, not through the GUI's own document code. No modal dialog is ever opened: the unsaved-changes
// question is answered by the test.
#include <QAction>
#include <QBarCategoryAxis>
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QCheckBox>
#include <QLabel>
#include <QLineSeries>
#include <QFileInfo>
#include <QLineEdit>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <sqlite3.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "gui/charts_panel.hpp"
#include "gui/human_units.hpp"
#include "gui/main_window.hpp"
#include "gui/param_form.hpp"
#include "gui/runs_table.hpp"
#include "gui/scenario_document.hpp"
#include "gui/summary_panel.hpp"
#include "gui/sweep_view.hpp"
#include "sim/api/clustersim.hpp"

using namespace cs;
using namespace cs::gui;

namespace {

const QString kFlagship = QStringLiteral(CS_SOURCE_DIR "/scenarios/gpt3-175b-1024xh100.yaml");

std::string read_text(const QString& path) {
  std::ifstream in(path.toStdString());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Types `text` into the form's line edit for `key`, as a user would (select all, type).
void type_into(MainWindow& w, const QString& key, const QString& text) {
  auto* edit = qobject_cast<QLineEdit*>(w.form()->field_widget(key));
  QVERIFY2(edit != nullptr, qPrintable("no line edit for " + key));
  edit->selectAll();
  QTest::keyClicks(edit, text);
}

/// The first parameter of `type` anywhere in the schema, as a dotted path.
QString first_param_of(const ParamSection& s, ParamType type, const QString& prefix) {
  for (const ParamSpec& p : s.params) {
    if (p.type == type && p.check) return prefix + QString::fromStdString(p.key);
  }
  for (const ParamSection& sub : s.sections) {
    const QString found = first_param_of(sub, type, prefix + QString::fromStdString(sub.key) + ".");
    if (!found.isEmpty()) return found;
  }
  return {};
}

/// Runs and waits for the result shown in the window.
void run_and_wait(MainWindow& w) {
  const int before = w.runs_table()->rowCount();
  QVERIFY(w.run_action()->isEnabled());
  w.run_action()->trigger();
  QVERIFY(w.running());
  QTRY_VERIFY_WITH_TIMEOUT(w.runs_table()->rowCount() == before + 1, 300000);
  QVERIFY(!w.running());
}

/// What the library says for the flagship with 512 GPUs (dp: auto, 16 -> 8, keeps tp x pp x dp = gpus).
RunRecord expected_512() {
  YAML::Node doc = YAML::Load(read_text(kFlagship));
  doc["cluster"]["gpus"] = 512;
  YAML::Emitter out;
  out << doc;
  RunRecord r;
  r.scenario = load_scenario_text(out.c_str(), kFlagship.toStdString());  // the name the window passes
  r.result = run_scenario(r.scenario);
  r.json = to_json(r.scenario, r.result);
  return r;
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location, not the user's
    QCoreApplication::setOrganizationName("clustersim-test");
    QCoreApplication::setApplicationName("clustersim-gui-test");
    QSettings().clear();
  }

  void an_inference_service_shows_its_latency_and_cost() {
    // A scenario with serving: runs in the window like any other; the summary shows the service's rows (the
    // training rows, which it has no value for, are hidden) with the library's numbers.
    const QString path = QStringLiteral(CS_SOURCE_DIR "/scenarios/llama3-70b-serving-32xh100.yaml");
    MainWindow w;
    QVERIFY(w.open_file(path));
    run_and_wait(w);
    const RunRecordPtr shown = w.current_run();
    QVERIFY(shown && shown->result.serving);
    const RunResult expected = run_scenario(load_scenario(path.toStdString()));
    QVERIFY(expected.serving);
    QCOMPARE(w.summary()->text("ttft_p50", "value"), format_duration(expected.serving->ttft.p50_s));
    QCOMPARE(w.summary()->text("tpot_p99", "value"), format_duration(expected.serving->tpot.p99_s));
    QVERIFY(w.summary()->text("usd_per_mtok_served", "value").startsWith("$"));
    QVERIFY(!w.summary()->findChild<QLabel*>("summary.step_time.value")->isVisibleTo(w.summary()));
    QVERIFY(w.summary()->findChild<QLabel*>("summary.ttft_p50.value")->isVisibleTo(w.summary()));
    // The Latency tab draws the three distributions: 41 quantiles each, from 0 to 100 % of the finished requests,
    // at the library's latencies (ms); the time to first token's median is the 21st point.
    QChart* cdf = w.charts()->chart("latency");
    QVERIFY(cdf);
    QCOMPARE(cdf->series().size(), 3);
    for (QAbstractSeries* s : cdf->series()) {
      auto* line = qobject_cast<QLineSeries*>(s);
      QVERIFY(line);
      QCOMPARE(line->count(), 41);
      QCOMPARE(line->at(0).y(), 0.0);
      QCOMPARE(line->at(40).y(), 100.0);
      if (line->name() == "time to first token") {
        QCOMPARE(line->at(20).x(), 1e3 * expected.serving->ttft.p50_s);
        QCOMPARE(line->at(40).x(), 1e3 * expected.serving->ttft.max_s);
      }
    }
    QVERIFY(cdf->title().contains("p99 TTFT " + format_duration(expected.serving->ttft.p99_s)));
  }

  void human_units() {
    QCOMPARE(format_dollars(39.2e6), QString("$39.2 M"));
    QCOMPARE(format_watts(1.37e6), QString("1.37 MW"));
    QCOMPARE(format_duration(7.4 * 86400), QString("7.4 days"));
    QCOMPARE(format_bytes(61.53e9), QString("61.5 GB"));
    QCOMPARE(format_dollars(999.6e3), QString("$1.00 M"));  // 999.6 k rounds to 1000 k: the next prefix
    QCOMPARE(format_percent(0.4123), QString("41.2 %"));
    QCOMPARE(format_delta(110, 100), QString("+10.0 %"));   // (110 - 100) / 100
    QCOMPARE(format_delta(95, 100), QString("-5.0 %"));
    // A result without the number (no token budget: no TCO, racks or power) shows "-", never a stray figure.
    const double absent = std::nan("");
    for (const QString& s : {format_count(absent), format_percent(absent), format_dollars_per_year(absent),
                             format_dollars(absent), format_watts(absent), format_duration(absent)}) {
      QCOMPARE(s, QString("-"));
    }
  }

  // The form is the schema: every parameter of the scenario file has a widget named by its path.
  void form_is_generated_from_the_schema() {
    MainWindow w;
    int params = 0;
    std::function<void(const ParamSection&, const QString&)> walk = [&](const ParamSection& s, const QString& prefix) {
      for (const ParamSpec& p : s.params) {
        const QString path = prefix + QString::fromStdString(p.key);
        QVERIFY2(w.form()->field_widget(path) != nullptr, qPrintable(path));
        ++params;
      }
      for (const ParamSection& sub : s.sections) walk(sub, prefix + QString::fromStdString(sub.key) + ".");
    };
    walk(api::schema(api::InputKind::scenario), "");
    QVERIFY(params > 40);
  }

  void edited_flagship_shows_the_library_numbers() {
    MainWindow w;
    QVERIFY(w.open_file(kFlagship));
    type_into(w, "cluster.gpus", "512");  // dp is auto in the flagship: 512 / (tp 8 x pp 8) = 8
    QVERIFY(w.isWindowModified());
    run_and_wait(w);
    const RunRecordPtr shown = w.current_run();
    QVERIFY(shown);
    const RunRecord expected = expected_512();
    QCOMPARE(shown->result.gpus, 512);
    // The same simulation: identical simulated step time (integer nanoseconds) and identical JSON result.
    QCOMPARE(shown->result.step.step_time.seconds(), expected.result.step.step_time.seconds());
    QCOMPARE(shown->json.dump(), expected.json.dump());
    // Every number of the summary panel is the library's, in the panel's units.
    for (const SummaryPanel::Metric& m : SummaryPanel::metrics()) {
      QCOMPARE(w.summary()->text(m.id, "value"), m.format(m.read(expected)));
    }
    QCOMPARE(w.summary()->text("step_time", "value"), format_duration(expected.result.step.step_time.seconds()));
    // The step time's error band: its ends as the library computed them, what they rest on on hover.
    QVERIFY(expected.result.step_band && expected.result.step_band->valid());
    QCOMPARE(w.summary()->text("step_band_low", "value"), format_duration(expected.result.step_band->low));
    QCOMPARE(w.summary()->text("step_band_high", "value"), format_duration(expected.result.step_band->high));
    QVERIFY(w.summary()->findChild<QLabel*>("summary.step_band_low.value")->toolTip().contains(
        QString::fromStdString(expected.result.step_band->basis).toHtmlEscaped()));
    QVERIFY(!shown->spans.empty());  // the timeline's data
  }

  void bad_unit_marks_the_field_and_disables_run() {
    MainWindow w;
    QVERIFY(w.open_file(kFlagship));
    const QString key = first_param_of(api::schema(api::InputKind::scenario), ParamType::bandwidth, "");
    QVERIFY2(!key.isEmpty(), "the scenario schema has a bandwidth parameter");
    type_into(w, key, "400Gbs");
    const std::optional<std::string> cli_message = api::check_value(api::InputKind::scenario, key.toStdString(), "400Gbs");
    QVERIFY(cli_message.has_value());
    QCOMPARE(w.form()->field_error(key), QString::fromStdString(*cli_message));
    auto* message = w.findChild<QLabel*>(key + ".message");
    QVERIFY(message && !message->isHidden());
    QCOMPARE(message->text(), QString::fromStdString(*cli_message));
    QVERIFY(w.form()->field_widget(key)->property("invalid").toBool());
    QVERIFY(!w.run_action()->isEnabled());
    QVERIFY(!w.run());
    type_into(w, key, "400Gbps");
    QVERIFY(w.form()->field_error(key).isEmpty());
    QVERIFY(w.run_action()->isEnabled());
  }

  void whole_scenario_error_is_located() {
    MainWindow w;
    QVERIFY(w.open_file(kFlagship));
    type_into(w, "parallelism.dp", "7");  // 8 x 8 x 7 = 448 GPUs, not 1024
    QVERIFY(w.run_action()->isEnabled());  // the value alone is fine
    QVERIFY(!w.run());
    QVERIFY(w.error_text().startsWith(w.document().display_name().c_str()));
    QVERIFY(w.runs_table()->rowCount() == 0);
  }

  void save_and_reload_round_trips() {
    QTemporaryDir dir;
    const QString path = dir.filePath("edited.yaml");
    std::string saved_text;
    {
      MainWindow w;
      QVERIFY(w.open_file(kFlagship));
      type_into(w, "training.global_batch", "768");
      QVERIFY(w.isWindowModified());
      QVERIFY(w.save_file(path));
      QVERIFY(!w.isWindowModified());
      saved_text = w.document().text();
    }
    MainWindow again;
    QVERIFY(again.open_file(path));
    QCOMPARE(again.document().text(), saved_text);
    QCOMPARE(qobject_cast<QLineEdit*>(again.form()->field_widget("training.global_batch"))->text(), QString("768"));
    // What Save wrote is the original scenario with one value changed, as the library reads it ...
    const Scenario original = load_scenario(kFlagship.toStdString());
    const Scenario edited = load_scenario(path.toStdString());
    QCOMPARE(edited.training.global_batch, std::int64_t{768});
    QCOMPARE(edited.gpus, original.gpus);
    QCOMPARE(edited.plan.tp, original.plan.tp);
    QCOMPARE(edited.training.seq_len, original.training.seq_len);
    QCOMPARE(edited.model.layers, original.model.layers);
    // ... and the clustersim command runs it unchanged, to the same result the window shows for it.
    const QString json_path = dir.filePath("cli.json");
    QProcess cli;
    cli.start(CLUSTERSIM_BIN, {"run", path, "--json", json_path});
    QVERIFY(cli.waitForFinished(300000));
    QCOMPARE(cli.exitCode(), 0);
    const nlohmann::json from_cli = nlohmann::json::parse(read_text(json_path));
    run_and_wait(again);
    QCOMPARE(again.current_run()->number("/step_time_s"), from_cli["step_time_s"].get<double>());
    QCOMPARE(again.current_run()->number("/tco/tco_usd_per_year"), from_cli["tco"]["tco_usd_per_year"].get<double>());
  }

  void unsaved_changes_are_asked_about() {
    MainWindow w;
    QVERIFY(w.open_file(kFlagship));
    type_into(w, "training.global_batch", "768");
    QString asked;
    w.set_unsaved_question([&](const QString& name) {
      asked = name;
      return QMessageBox::Cancel;
    });
    QVERIFY(!w.open_file(QStringLiteral(CS_SOURCE_DIR "/scenarios/gpt3-1.3b-8xh100-dp.yaml")));
    QCOMPARE(asked, kFlagship);
    QCOMPARE(w.document().value("training.global_batch").value_or(""), std::string("768"));
    w.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    QVERIFY(w.open_file(QStringLiteral(CS_SOURCE_DIR "/scenarios/gpt3-1.3b-8xh100-dp.yaml")));
    QVERIFY(!w.isWindowModified());
  }

  void baseline_deltas() {
    MainWindow w;
    QVERIFY(w.open_file(kFlagship));
    run_and_wait(w);
    w.pin_baseline();
    const RunRecordPtr base = w.baseline_run();
    QVERIFY(base);
    type_into(w, "cluster.gpus", "512");  // dp is auto in the flagship: 512 / (tp 8 x pp 8) = 8
    run_and_wait(w);
    const RunRecordPtr cur = w.current_run();
    QVERIFY(cur && cur != base);
    QCOMPARE(w.baseline_run(), base);
    const double b = base->result.step.step_time.seconds();
    const double c = cur->result.step.step_time.seconds();
    QVERIFY(c > b);  // half the data-parallel width, the same global batch: each step takes longer
    QCOMPARE(w.summary()->text("step_time", "baseline"), format_duration(b));
    QCOMPARE(w.summary()->text("step_time", "value"), format_duration(c));
    const QString delta = (c > b ? "+" : "") + QString::number(100.0 * (c - b) / b, 'f', 1) + " %";
    QCOMPARE(w.summary()->text("step_time", "delta"), delta);
    // Colours say which way is better: a longer step is worse (red), more MFU is better (green).
    const auto colour = [&](const QString& id) { return w.summary()->findChild<QLabel*>("summary." + id + ".delta")->styleSheet(); };
    QVERIFY(colour("step_time").contains("#c0392b"));
    QVERIFY(colour("mfu").contains(cur->result.mfu > base->result.mfu ? "#1e8449" : "#c0392b"));
    // Half the GPUs: the capex falls, and the change says so.
    const double capex_b = base->number("/tco/hardware_capex_usd") + base->number("/tco/facility_capex_usd");
    const double capex_c = cur->number("/tco/hardware_capex_usd") + cur->number("/tco/facility_capex_usd");
    QVERIFY(capex_c < capex_b);
    QCOMPARE(w.summary()->text("capex", "delta"), format_delta(capex_c, capex_b));
    QVERIFY(w.summary()->text("capex", "delta").startsWith("-"));
    // The charts show the baseline beside the current run, and the session table holds both runs.
    QCOMPARE(w.runs_table()->rowCount(), 2);
    QVERIFY(w.charts()->chart("breakdown")->series().size() == 1);
    auto* categories = qobject_cast<QBarCategoryAxis*>(w.charts()->chart("breakdown")->axes(Qt::Vertical).front());
    QVERIFY(categories != nullptr);
    QCOMPARE(categories->categories(), QStringList({"baseline", "current"}));
    // Going back to the first run puts its scenario back in the editor.
    w.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    w.go_back_to(base);
    QCOMPARE(w.document().value("cluster.gpus").value_or(""), std::string("1024"));
    QCOMPARE(w.current_run(), base);
  }

  // A results database in the layout `clustersim sweep` writes (docs/sweeps.md), filled with real results of the
  // library: three global batch sizes of the 1.3B scenario and one failed point.
  void sweep_database_plots_its_points() {
    QTemporaryDir dir;
    const QString path = dir.filePath("results.sqlite");
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db,
                          "CREATE TABLE points(hash TEXT PRIMARY KEY, sweep TEXT NOT NULL, point_index INTEGER NOT NULL,"
                          " label TEXT NOT NULL, axes TEXT NOT NULL, scenario_yaml TEXT NOT NULL, status TEXT NOT NULL,"
                          " reason TEXT NOT NULL, result TEXT)",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    const QString base = QStringLiteral(CS_SOURCE_DIR "/scenarios/gpt3-1.3b-8xh100-dp.yaml");
    std::vector<std::pair<double, double>> step_mfu;
    const std::vector<int> batches{128, 256, 512};
    for (std::size_t i = 0; i <= batches.size(); ++i) {
      const bool failed = i == batches.size();
      const int batch = failed ? 100 : batches[i];
      YAML::Node doc = YAML::Load(read_text(base));
      doc["training"]["global_batch"] = batch;
      YAML::Emitter out;
      out << doc;
      const std::string label = "training.global_batch=" + std::to_string(batch);
      std::string result;
      if (!failed) {
        const Scenario sc = load_scenario_text(out.c_str(), label);
        const RunResult r = run_scenario(sc);
        result = to_json(sc, r).dump();
        step_mfu.emplace_back(r.step.step_time.seconds(), r.mfu);
      }
      sqlite3_stmt* st = nullptr;
      QCOMPARE(sqlite3_prepare_v2(db, "INSERT INTO points VALUES(?, 'batch', ?, ?, ?, ?, ?, ?, ?)", -1, &st, nullptr),
               SQLITE_OK);
      const std::string axes = "{\"training.global_batch\": " + std::to_string(batch) + "}";
      sqlite3_bind_text(st, 1, std::to_string(i).c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(st, 2, static_cast<int>(i));
      sqlite3_bind_text(st, 3, label.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 4, axes.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 5, out.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 6, failed ? "failed" : "ok", -1, SQLITE_STATIC);
      sqlite3_bind_text(st, 7, failed ? "global_batch 100 is not a multiple of micro_batch x dp" : "", -1, SQLITE_STATIC);
      if (failed) sqlite3_bind_null(st, 8);
      else sqlite3_bind_text(st, 8, result.c_str(), -1, SQLITE_TRANSIENT);
      QCOMPARE(sqlite3_step(st), SQLITE_DONE);
      sqlite3_finalize(st);
    }
    sqlite3_close(db);

    MainWindow w;
    QVERIFY(w.open_sweep(path));
    SweepView* view = w.sweep_view();
    view->set_fields("training.global_batch", "step_time_s");
    QCOMPARE(view->plotted_count(), 3);  // the failed point has no result to plot
    // The Pareto front of (step time, MFU), both minimised, against a brute-force dominance count.
    view->set_pareto(true);
    view->set_fields("step_time_s", "mfu");
    int expected_front = 0;
    for (std::size_t i = 0; i < step_mfu.size(); ++i) {
      bool dominated = false;
      for (std::size_t j = 0; j < step_mfu.size(); ++j) {
        dominated = dominated || (j != i && step_mfu[j].first <= step_mfu[i].first &&
                                  step_mfu[j].second <= step_mfu[i].second && step_mfu[j] != step_mfu[i]);
      }
      expected_front += !dominated;
    }
    QCOMPARE(view->front_count(), expected_front);
    // Clicking a point loads its scenario into the editor, as a new unsaved document.
    view->set_fields("training.global_batch", "step_time_s");
    w.set_unsaved_question([](const QString&) { return QMessageBox::Discard; });
    view->activate_point(1);
    QCOMPARE(w.document().value("training.global_batch").value_or(""), std::string("256"));
    QVERIFY(w.isWindowModified());
    // A file that is not a results database is refused with its name, and the plot stays.
    const QString junk = dir.filePath("junk.sqlite");
    {
      std::ofstream out(junk.toStdString());
      out << "not a database at all, just text\n";
    }
    QVERIFY(!w.open_sweep(junk));
    QVERIFY(w.error_text().contains(junk));
    QCOMPARE(view->plotted_count(), 3);
  }

  void drop_recent_files_and_bad_yaml() {
    QTemporaryDir dir;
    {
      MainWindow w;
      // Dropping a scenario file on the window opens it.
      QMimeData mime;
      mime.setUrls({QUrl::fromLocalFile(kFlagship)});
      QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &enter);
      QVERIFY(enter.isAccepted());
      QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &drop);
      QCOMPARE(w.document().path(), kFlagship.toStdString());
      QCOMPARE(QSettings().value("recent_files").toStringList().front(), QFileInfo(kFlagship).absoluteFilePath());
      // Malformed YAML is refused with its line and column; the open document stays.
      const QString bad = dir.filePath("bad.yaml");
      {
        std::ofstream out(bad.toStdString());
        out << "format_version: 1\ncluster: [gpus: 8\n";
      }
      QVERIFY(!w.open_file(bad));
      QVERIFY2(w.error_text().startsWith(bad + ":3:"), qPrintable(w.error_text()));
      QCOMPARE(w.document().path(), kFlagship.toStdString());
      w.close();  // saves the layout
    }
    QVERIFY(!QSettings().value("window/geometry").toByteArray().isEmpty());
    QVERIFY(!QSettings().value("window/main_split").toByteArray().isEmpty());
  }

  void scenario_document_edits() {
    ScenarioDocument doc;
    doc.load_text("format_version: 1\nname: x\ncluster:\n  gpus: 8\n", "doc.yaml");
    QVERIFY(!doc.modified());
    doc.set_value("cluster.gpus", "8");  // the same value: no change
    QVERIFY(!doc.modified());
    doc.set_value("facility.cooling.pue", "1.2");  // creates facility and facility.cooling
    QVERIFY(doc.modified());
    QCOMPARE(doc.value("facility.cooling.pue").value_or(""), std::string("1.2"));
    doc.set_value("facility.cooling.pue", "");  // back to the default: the empty sections go too
    QVERIFY(!doc.value("facility").has_value());
    doc.set_value("network.overrides", "[a, b]");  // flow text is YAML
    QCOMPARE(doc.value("network.overrides").value_or(""), std::string("[a, b]"));
    doc.set_value("network.overrides", "[a, b");  // half-typed flow: kept as written, not thrown
    QCOMPARE(doc.value("network.overrides").value_or(""), std::string("[a, b"));
    QCOMPARE(doc.text(), std::string("format_version: 1\nname: x\ncluster:\n  gpus: 8\nnetwork:\n  overrides: \"[a, b\"\n"));
  }

  // A pipeline whose last stage finishes last while another is the bottleneck: the breakdown chart shows both
  // stages, each with its own numbers from the run's JSON.
  void breakdown_shows_the_busiest_stage_where_it_differs() {
    MainWindow w;
    QVERIFY(w.open_file(QStringLiteral(CS_SOURCE_DIR "/scenarios/deepseek-v3-1024xh100.yaml")));
    run_and_wait(w);
    const RunRecordPtr run = w.current_run();
    QVERIFY(run);
    const int critical = run->result.step.critical_stage, busiest = run->result.step.busiest_stage;
    QVERIFY(critical != busiest);
    auto* chart = w.charts()->chart("breakdown");
    auto* categories = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Vertical).front());
    QVERIFY(categories != nullptr);
    QCOMPARE(categories->categories(), QStringList({QString("stage %1 (last)").arg(critical),
                                                    QString("stage %1 (busiest)").arg(busiest)}));
    auto* series = qobject_cast<QAbstractBarSeries*>(chart->series().front());
    QVERIFY(series != nullptr);
    for (QBarSet* set : series->barSets()) {
      if (set->label() == "EP comm") {
        QCOMPARE(set->at(0), run->result.step.breakdown.ep_comm.seconds());
        QCOMPARE(set->at(1), run->result.step.busiest.ep_comm.seconds());
        QVERIFY(set->at(1) > 0);
      }
    }
  }

  void cancel_stops_the_run() {
    MainWindow w;
    QVERIFY(w.open_file(kFlagship));
    QVERIFY(w.run());
    w.cancel_run();
    QTRY_VERIFY_WITH_TIMEOUT(!w.running(), 60000);
    QTest::qWait(50);
    QVERIFY(!w.current_run());
    QCOMPARE(w.runs_table()->rowCount(), 0);
    QVERIFY(w.run_action()->isEnabled());
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
