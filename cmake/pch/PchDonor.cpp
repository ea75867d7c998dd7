// The one source of a precompiled-header donor target (cmake/Pch.cmake): the targets that reuse
// its precompiled header compile with the donor's flags.
