/** The front door of src/modules/tasks: what code outside the module uses of it (test/layers.test.ts). */
export { NewTaskBody, TaskChangesBody, TaskListQuerySchema, TaskSchema } from './schema.js';
export { createTask, findTask, insertTask, listTasks, taskView, updateTask } from './service.js';
