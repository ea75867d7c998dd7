#pragma once
/// @file SectionEditor.h
/// A workbench editor of an experiment kind's section that a schema cannot describe (a param
/// sweep's grid), found by the id the kind names (ExperimentKind::sectionEditor()).

#include <trainbench/ParamSpec.h>

#include <QJsonObject>
#include <QList>
#include <QStringList>
#include <QWidget>
#include <functional>

namespace tb::gui {

/// Edits the section objects of one kind in an experiment file. The Experiment panel shows it
/// below the kind's schema fields (KindFields). GUI thread only.
class SectionEditor : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    /// Shows the section of @p file (an opened experiment file, or {} for the defaults). Emits
    /// changed() once.
    virtual void setFile(const QJsonObject& file) = 0;
    /// Writes the section into @p file, as the file holds it; a value that does not parse is
    /// written as typed, so that validation names it.
    virtual void writeTo(QJsonObject& file) const = 0;
    /// Problems of the fields, each naming its key path ("sweep.grid.lr: \"x\" is not a number").
    virtual QStringList problems() const = 0;

    /// For an editor whose section varies algorithm parameters: the parameters it may vary (those
    /// every selected algorithm has). Default: ignored.
    virtual void setParameters(const QList<ParamSpec>& specs) { Q_UNUSED(specs); }
    /// Adds parameter @p key to what the section varies (an algorithm form's "Vary this parameter");
    /// false when this editor varies no parameters.
    virtual bool addParameter(const QString& key)
    {
        Q_UNUSED(key);
        return false;
    }

Q_SIGNALS:
    void changed();
};

/// The section editors the workbench has, by id. Thread-safe registration at load time.
class SectionEditors {
public:
    using Factory = std::function<SectionEditor*(QWidget* parent)>;
    /// Registers @p factory as @p id; a second one of an id is refused (false).
    static bool add(const QString& id, Factory factory);
    /// A new editor @p id, or nullptr for an unknown id.
    static SectionEditor* create(const QString& id, QWidget* parent);
    /// Every registered id.
    static QStringList ids();
};

} // namespace tb::gui
