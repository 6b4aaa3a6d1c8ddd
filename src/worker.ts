// The worker entry point. Filled in by the workflows issue (#6): configuration, activities, workflows, shutdown.
export {};
