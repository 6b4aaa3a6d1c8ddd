// The starter CLI entry point. Filled in by the CLI issue (#8).
export {};
