// The planner's window: the scenario's forms on the left, the result (summary, charts) on the right, the
// session's runs below. File menu with recent files and drag and drop, Run in the background with a progress
// indicator and Cancel, a pinned baseline every later run is compared with, a layout remembered in QSettings.
// Nothing here simulates: Run hands the document to cs::load_scenario_text and cs::api::run.
#pragma once

#include <QMainWindow>
#include <QMessageBox>

#include <functional>

#include "gui/run_record.hpp"
#include "gui/scenario_document.hpp"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QSplitter;
class QTimer;
class QPushButton;

namespace cs::gui {

class ChartsPanel;
class ParamForm;
class DesignView;
class ScheduleView;
class PlanSearchView;
class RunsTable;
class SweepView;
class ScenarioRunner;
class SummaryPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens `path` (asking about unsaved changes first); a bad file leaves the document as it was and says why
  /// in the banner. Returns true when the file was opened.
  bool open_file(const QString& path);
  /// Saves to `path` (empty: the document's own file). Returns false and says why on failure.
  bool save_file(const QString& path = {});
  /// Sets the scenario key `key` (dotted) to `text` as if typed into its field; empty text removes it.
  void set_value(const QString& key, const QString& text);
  /// Opens a sweep results database in the Sweep tab; false (and why, in the banner) when it cannot be read.
  bool open_sweep(const QString& path);
  /// Loads a scenario held in memory (a sweep point) into the editor as a new, unsaved document.
  bool load_scenario_text_into_editor(const QString& yaml, const QString& name);
  /// Checks the whole scenario and starts it in the background; false (with the located error shown) when it
  /// cannot run.
  bool run();
  void cancel_run();
  /// Makes the current result the baseline later runs are compared with.
  void pin_baseline();
  void clear_baseline();
  /// Loads the scenario `run` ran into the editor and shows its result.
  void go_back_to(const RunRecordPtr& run);

  [[nodiscard]] bool running() const;
  /// Blocks until a run in flight ends and its result is shown (tests, --screenshot).
  void wait_for_run();
  [[nodiscard]] RunRecordPtr current_run() const { return current_; }
  [[nodiscard]] RunRecordPtr baseline_run() const { return baseline_; }
  [[nodiscard]] ScenarioDocument& document() { return doc_; }
  [[nodiscard]] ParamForm* form() const { return form_; }
  [[nodiscard]] SummaryPanel* summary() const { return summary_; }
  [[nodiscard]] ChartsPanel* charts() const { return charts_; }
  [[nodiscard]] RunsTable* runs_table() const { return runs_; }
  [[nodiscard]] SweepView* sweep_view() const { return sweep_; }
  [[nodiscard]] PlanSearchView* plan_search_view() const { return search_; }
  [[nodiscard]] DesignView* design_view() const { return design_; }
  [[nodiscard]] ScheduleView* schedule_view() const { return schedule_; }
  [[nodiscard]] QAction* run_action() const { return run_action_; }
  /// The message in the error banner; empty when none is shown.
  [[nodiscard]] QString error_text() const;

  /// What to do with unsaved changes, asked with the document's name: Save, Discard or Cancel. A message box by
  /// default; tests answer it without a dialog.
  using UnsavedQuestion = std::function<QMessageBox::StandardButton(const QString& name)>;
  void set_unsaved_question(UnsavedQuestion ask) { ask_ = std::move(ask); }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_actions();
  void build_layout();
  bool maybe_save();
  void new_document();
  void open_dialog();
  bool save_as_dialog();
  void show_error(const QString& message);
  void clear_error();
  void update_title();
  void update_actions();
  void add_recent(const QString& path);
  void rebuild_recent_menu();
  void on_finished(const RunRecordPtr& run);
  void show_result();
  void about();

  ScenarioDocument doc_;
  ParamForm* form_ = nullptr;
  SummaryPanel* summary_ = nullptr;
  ChartsPanel* charts_ = nullptr;
  RunsTable* runs_ = nullptr;
  SweepView* sweep_ = nullptr;
  PlanSearchView* search_ = nullptr;
  DesignView* design_ = nullptr;
  ScheduleView* schedule_ = nullptr;
  ScenarioRunner* runner_ = nullptr;
  QLabel* banner_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QTimer* progress_timer_ = nullptr;
  QSplitter* main_split_ = nullptr;
  QSplitter* right_split_ = nullptr;
  QSplitter* result_split_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QAction* run_action_ = nullptr;
  QAction* cancel_action_ = nullptr;
  QAction* pin_action_ = nullptr;
  QAction* clear_pin_action_ = nullptr;
  QAction* save_action_ = nullptr;
  RunRecordPtr current_;
  RunRecordPtr baseline_;
  int next_id_ = 1;
  UnsavedQuestion ask_;
};

}  // namespace cs::gui
