#include "gui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "gui/charts_panel.hpp"
#include "gui/design_view.hpp"
#include "gui/schedule_view.hpp"
#include "gui/human_units.hpp"
#include "gui/param_form.hpp"
#include "gui/plan_search_view.hpp"
#include "gui/runs_table.hpp"
#include "gui/scenario_runner.hpp"
#include "gui/summary_panel.hpp"
#include "gui/sweep_view.hpp"

namespace cs::gui {
namespace {
constexpr int kMaxRecent = 8;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("main_window");
  setAcceptDrops(true);
  ask_ = [this](const QString& name) {
    return QMessageBox::question(this, "Unsaved changes", name + " has unsaved changes. Save them?",
                                 QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  };
  runner_ = new ScenarioRunner(this);
  connect(runner_, &ScenarioRunner::finished, this, &MainWindow::on_finished);
  connect(runner_, &ScenarioRunner::failed, this, [this](const QString& msg) {
    show_error(msg);
    update_actions();
  });
  connect(runner_, &ScenarioRunner::cancelled, this, [this] {
    status_->setText("Run cancelled.");
    update_actions();
  });
  build_layout();
  build_actions();
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  main_split_->restoreState(settings.value("window/main_split").toByteArray());
  right_split_->restoreState(settings.value("window/right_split").toByteArray());
  result_split_->restoreState(settings.value("window/result_split").toByteArray());
  update_title();
  update_actions();
}

MainWindow::~MainWindow() = default;

void MainWindow::build_layout() {
  auto* left = new QWidget;
  auto* lv = new QVBoxLayout(left);
  lv->setContentsMargins(4, 4, 4, 4);
  banner_ = new QLabel;
  banner_->setObjectName("error_banner");
  banner_->setWordWrap(true);
  banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  banner_->setStyleSheet("background: #fadbd8; color: #78281f; padding: 6px;");
  banner_->hide();
  form_ = new ParamForm(api::schema(api::InputKind::scenario), doc_);
  connect(form_, &ParamForm::edited, this, [this] {
    clear_error();
    update_title();
  });
  connect(form_, &ParamForm::validity_changed, this, [this](bool) { update_actions(); });
  lv->addWidget(banner_);
  lv->addWidget(form_, 1);

  summary_ = new SummaryPanel;
  charts_ = new ChartsPanel;
  runs_ = new RunsTable;
  connect(runs_, &RunsTable::run_activated, this, &MainWindow::go_back_to);
  sweep_ = new SweepView;
  charts_->addTab(sweep_, "Sweep");
  connect(sweep_, &SweepView::open_requested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open sweep results", QString(),
                                                      "Sweep results (*.sqlite *.db);;All files (*)");
    if (!path.isEmpty()) open_sweep(path);
  });
  connect(sweep_, &SweepView::point_activated, this,
          [this](const QString& label, const QString& yaml) { load_scenario_text_into_editor(yaml, label); });
  search_ = new PlanSearchView(doc_);
  charts_->addTab(search_, "Plan search");
  design_ = new DesignView(doc_);
  charts_->addTab(design_, "Design");
  schedule_ = new ScheduleView;
  charts_->addTab(schedule_, "Schedule");
  connect(schedule_, &ScheduleView::open_requested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open schedule", QString(),
                                                      "Schedule files (*.yaml *.yml);;All files (*)");
    if (!path.isEmpty()) schedule_->open(path);
  });
  connect(search_, &PlanSearchView::plan_applied, this, [this](const QString& description) {
    form_->reload();
    form_->show_field("parallelism.tp");
    clear_error();
    update_title();
    update_actions();
    status_->setText("Plan " + description + " written into the scenario.");
  });

  result_split_ = new QSplitter(Qt::Horizontal);
  result_split_->setObjectName("result_split");
  result_split_->addWidget(summary_);
  result_split_->addWidget(charts_);
  result_split_->setStretchFactor(1, 1);
  right_split_ = new QSplitter(Qt::Vertical);
  right_split_->setObjectName("right_split");
  right_split_->addWidget(result_split_);
  right_split_->addWidget(runs_);
  right_split_->setStretchFactor(0, 1);
  main_split_ = new QSplitter(Qt::Horizontal);
  main_split_->setObjectName("main_split");
  main_split_->addWidget(left);
  main_split_->addWidget(right_split_);
  main_split_->setStretchFactor(1, 1);
  setCentralWidget(main_split_);
  resize(1600, 1000);
  main_split_->setSizes({520, 1080});
  result_split_->setSizes({400, 680});
  right_split_->setSizes({780, 200});

  status_ = new QLabel("Ready.");
  progress_ = new QProgressBar;
  progress_->setRange(0, 0);  // busy indicator: the replay does not know its length in advance
  progress_->setMaximumWidth(160);
  progress_->hide();
  cancel_button_ = new QPushButton("Cancel");
  cancel_button_->hide();
  connect(cancel_button_, &QPushButton::clicked, this, &MainWindow::cancel_run);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_button_);
  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(100);
  connect(progress_timer_, &QTimer::timeout, this, [this] {
    status_->setText(QStringLiteral("Simulating... %1 spans replayed").arg(runner_->spans_seen()));
  });
}

void MainWindow::build_actions() {
  QMenu* file = menuBar()->addMenu("&File");
  QAction* new_action = file->addAction("&New", QKeySequence::New, this, [this] {
    if (maybe_save()) new_document();
  });
  QAction* open = file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::open_dialog);
  recent_menu_ = file->addMenu("Open &Recent");
  save_action_ = file->addAction("&Save", QKeySequence::Save, this, [this] {
    if (doc_.path().empty()) save_as_dialog();
    else save_file();
  });
  file->addAction("Save &As...", QKeySequence::SaveAs, this, &MainWindow::save_as_dialog);
  file->addSeparator();
  file->addAction("Open Sweep &Results...", this, [this] { Q_EMIT sweep_->open_requested(); });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  rebuild_recent_menu();

  QMenu* run_menu = menuBar()->addMenu("&Run");
  run_action_ = run_menu->addAction("&Run", this, [this] { run(); });
  run_action_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)});
  run_action_->setObjectName("action.run");
  cancel_action_ = run_menu->addAction("&Cancel", QKeySequence(Qt::Key_Escape), this, &MainWindow::cancel_run);
  run_menu->addSeparator();
  pin_action_ = run_menu->addAction("&Pin as baseline", QKeySequence(Qt::CTRL | Qt::Key_B), this, &MainWindow::pin_baseline);
  clear_pin_action_ = run_menu->addAction("C&lear baseline", this, &MainWindow::clear_baseline);

  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&About clustersim planner", this, &MainWindow::about);

  QToolBar* bar = addToolBar("Main");
  bar->setObjectName("toolbar");
  bar->addAction(new_action);
  bar->addAction(open);
  bar->addAction(save_action_);
  bar->addSeparator();
  bar->addAction(run_action_);
  bar->addAction(cancel_action_);
  bar->addAction(pin_action_);
}

QString MainWindow::error_text() const { return banner_->isHidden() ? QString() : banner_->text(); }

void MainWindow::show_error(const QString& message) {
  banner_->setText(message);
  banner_->show();
  status_->setText("Error: see the message above the form.");
}

void MainWindow::clear_error() {
  banner_->clear();
  banner_->hide();
}

void MainWindow::update_title() {
  setWindowTitle(QString::fromStdString(doc_.display_name()) + "[*] - clustersim planner");
  setWindowModified(doc_.modified());
}

void MainWindow::update_actions() {
  const bool busy = runner_->busy();
  run_action_->setEnabled(!busy && form_->valid());
  run_action_->setToolTip(form_->valid() ? "Run the scenario (F5)" : "Fix the marked fields first:\n" + form_->errors().join("\n"));
  cancel_action_->setEnabled(busy);
  pin_action_->setEnabled(current_ != nullptr);
  clear_pin_action_->setEnabled(baseline_ != nullptr);
  progress_->setVisible(busy);
  cancel_button_->setVisible(busy);
  if (busy) progress_timer_->start();
  else progress_timer_->stop();
}

bool MainWindow::maybe_save() {
  if (!doc_.modified()) return true;
  switch (ask_(QString::fromStdString(doc_.display_name()))) {
    case QMessageBox::Save: return doc_.path().empty() ? save_as_dialog() : save_file();
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

void MainWindow::new_document() {
  doc_ = ScenarioDocument();
  form_->reload();
  clear_error();
  update_title();
}

bool MainWindow::open_file(const QString& path) {
  if (!maybe_save()) return false;
  try {
    ScenarioDocument next;
    next.load_file(path.toStdString());
    doc_ = std::move(next);
  } catch (const std::exception& e) {
    show_error(QString::fromStdString(e.what()));
    return false;
  }
  form_->reload();
  clear_error();
  add_recent(QFileInfo(path).absoluteFilePath());
  update_title();
  update_actions();
  status_->setText("Opened " + path + ".");
  return true;
}

void MainWindow::open_dialog() {
  if (!maybe_save()) return;
  const QString path = QFileDialog::getOpenFileName(this, "Open scenario", "scenarios", "Scenarios (*.yaml *.yml)");
  if (!path.isEmpty()) open_file(path);
}

bool MainWindow::save_file(const QString& path) {
  const std::string target = path.isEmpty() ? doc_.path() : path.toStdString();
  if (target.empty()) return save_as_dialog();
  try {
    doc_.save_file(target);
  } catch (const std::exception& e) {
    show_error(QString::fromStdString(e.what()));
    return false;
  }
  add_recent(QFileInfo(QString::fromStdString(target)).absoluteFilePath());
  update_title();
  status_->setText("Saved " + QString::fromStdString(target) + ".");
  return true;
}

bool MainWindow::save_as_dialog() {
  const QString path = QFileDialog::getSaveFileName(this, "Save scenario", QString::fromStdString(doc_.path()),
                                                    "Scenarios (*.yaml *.yml)");
  return !path.isEmpty() && save_file(path);
}

void MainWindow::add_recent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("recent_files").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recent_files", recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("recent_files").toStringList();
  for (int i = 0; i < recent.size(); ++i) {
    const QString path = recent[i];
    QAction* a = recent_menu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(path), this, [this, path] { open_file(path); });
    a->setShortcut(i == 0 ? QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O) : QKeySequence());
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::set_value(const QString& key, const QString& text) {
  doc_.set_value(key.toStdString(), text.toStdString());
  form_->reload();
  form_->show_field(key);
  update_title();
  update_actions();
}

bool MainWindow::open_sweep(const QString& path) {
  if (const auto error = sweep_->open(path)) {
    show_error(*error);
    return false;
  }
  clear_error();
  charts_->setCurrentWidget(sweep_);
  status_->setText("Opened sweep results " + path + ".");
  return true;
}

bool MainWindow::load_scenario_text_into_editor(const QString& yaml, const QString& name) {
  if (yaml.isEmpty()) {
    show_error(name + ": the results database holds no scenario for this point");
    return false;
  }
  if (!maybe_save()) return false;
  try {
    ScenarioDocument next;
    next.load_text(yaml.toStdString(), name.toStdString());
    doc_ = std::move(next);
  } catch (const std::exception& e) {
    show_error(QString::fromStdString(e.what()));
    return false;
  }
  doc_.set_modified(true);  // never saved: Save asks where
  form_->reload();
  clear_error();
  update_title();
  update_actions();
  status_->setText("Loaded the sweep point " + name + " into the editor.");
  return true;
}

bool MainWindow::run() {
  if (runner_->busy()) return false;
  if (!form_->valid()) {
    show_error("Fix the marked fields first:\n" + form_->errors().join("\n"));
    return false;
  }
  auto record = std::make_shared<RunRecord>();
  record->yaml = doc_.text();
  record->file = doc_.path();
  Scenario sc;
  try {
    sc = load_scenario_text(record->yaml, doc_.display_name());
  } catch (const InputError& e) {
    // A whole-scenario error (tp x pp x dp against the GPUs, an unknown key, a missing topology): shown in the
    // banner as the CLI prints it, and at its field when the form has one.
    show_error(QString::fromStdString(e.what()));
    form_->mark_error(QString::fromStdString(e.key_path()), QString::fromStdString(e.message()));
    return false;
  } catch (const std::exception& e) {
    show_error(QString::fromStdString(e.what()));
    return false;
  }
  clear_error();
  record->id = next_id_++;
  runner_->start(std::move(sc), record);
  status_->setText("Simulating...");
  update_actions();
  return true;
}

void MainWindow::cancel_run() { runner_->cancel(); }

bool MainWindow::running() const { return runner_->busy(); }

void MainWindow::wait_for_run() {
  runner_->wait();
  QApplication::processEvents();  // delivers the runner's finished signal
}

void MainWindow::on_finished(const RunRecordPtr& run) {
  current_ = run;
  runs_->add_run(run);
  runs_->mark_baseline(baseline_ ? baseline_->id : 0);
  show_result();
  status_->setText(QStringLiteral("%1 finished: simulated in %2.").arg(run->label()).arg(format_duration(run->wall_seconds)));
  update_actions();
}

void MainWindow::show_result() {
  summary_->show_runs(current_, baseline_);
  charts_->show_runs(current_, baseline_);
}

void MainWindow::pin_baseline() {
  if (!current_) return;
  baseline_ = current_;
  runs_->mark_baseline(baseline_->id);
  show_result();
  update_actions();
}

void MainWindow::clear_baseline() {
  baseline_ = nullptr;
  runs_->mark_baseline(0);
  show_result();
  update_actions();
}

void MainWindow::go_back_to(const RunRecordPtr& run) {
  if (!maybe_save()) return;
  ScenarioDocument doc;
  doc.load_text(run->yaml, run->file.empty() ? "untitled.yaml" : run->file);
  doc_ = std::move(doc);
  doc_.set_modified(true);
  form_->reload();
  current_ = run;
  show_result();
  update_title();
  update_actions();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybe_save()) {
    event->ignore();
    return;
  }
  runner_->cancel();
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("window/main_split", main_split_->saveState());
  settings.setValue("window/right_split", right_split_->saveState());
  settings.setValue("window/result_split", result_split_->saveState());
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    const QString p = url.toLocalFile();
    if (p.endsWith(".yaml") || p.endsWith(".yml")) {
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    const QString p = url.toLocalFile();
    if (p.endsWith(".yaml") || p.endsWith(".yml")) {
      open_file(p);
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::about() {
  QMessageBox::about(this, "About clustersim planner",
                     QStringLiteral("<b>clustersim planner</b> %1<br>What-if planning of GPU training clusters: step "
                                    "time, memory, power and cost.<br>Built on the clustersim library API %1 with Qt %2.")
                         .arg(QString::fromStdString(api::version()), QString::fromLatin1(qVersion())));
}

}  // namespace cs::gui
