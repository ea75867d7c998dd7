#pragma once
/// @file KindFields.h
/// The fields of one experiment kind in the Experiment panel, built from what the kind declares.

#include <QJsonObject>
#include <QStringList>
#include <QWidget>

namespace tb {
class ExperimentKind;
}

namespace tb::gui {

class ParamForm;
class SectionEditor;

/// One kind's part of an experiment file, as a form: its keys (ExperimentKind::keys(), e.g.
/// "repeats") and the fields of its section (ExperimentKind::sectionSchema(), keys that are paths
/// into the file such as "sweep.sigma") in one ParamForm, and below them the kind's own editor when
/// it names one (ExperimentKind::sectionEditor(), from SectionEditors). Nothing here knows a
/// kind by name: a new kind's fields appear with its schema. GUI thread only.
class KindFields : public QWidget {
    Q_OBJECT
public:
    explicit KindFields(const ExperimentKind& kind, QWidget* parent = nullptr);

    /// Shows the kind's keys and section of @p file; absent keys get their defaults. Emits changed().
    void setFile(const QJsonObject& file);
    /// Writes the kind's keys and section into @p file: a key of keys() when it was given or differs
    /// from its default, every field of the section (so the file says what ran), the editor's part.
    void writeTo(QJsonObject& file) const;
    /// Removes this kind's keys and section objects from @p file (another kind was chosen).
    void removeFrom(QJsonObject& file) const;
    /// Problems of the fields, each naming its key path ("sweep.sigma: …").
    QStringList problems() const;
    /// Whether the kind has anything to edit here.
    bool isEmpty() const { return !m_form && !m_editor; }

    /// The form of the kind's schema fields (null when it has none) and its editor (null when none).
    ParamForm* form() const { return m_form; }
    SectionEditor* editor() const { return m_editor; }

Q_SIGNALS:
    void changed();

private:
    const ExperimentKind& m_kind;
    ParamForm* m_form = nullptr;
    SectionEditor* m_editor = nullptr;
    QStringList m_keyKeys;      ///< the kind's keys() (top level)
    QStringList m_sectionKeys;  ///< the section schema's keys (paths)
};

} // namespace tb::gui
