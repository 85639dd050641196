// The console's route table: each view's hash path, title, nav label (none: reached by links only) and audience —
// 'staff' (members of the current facility), 'patient' (accounts without a membership), 'any' (everyone signed
// in). The shell shows the nav entries of the signed-in account's audience; an application admin or the current
// facility's superadmin sees all. One contiguous block per area below (imports, then routes).
import type { ComponentType } from 'preact'
// Patients, records, attachments, account
import { PatientList } from './views/patients/PatientList'
import { PatientPage } from './views/patients/PatientPage'
import { AccountPage } from './views/account/AccountPage'
// Members, organizations, billing, subscription, directory, webhooks, orders, inventory
import { Members } from './views/organizations/Members'
import { JoinFacility } from './views/organizations/JoinFacility'
import { Billing } from './views/billing/Billing'
import { Subscription } from './views/subscription/Subscription'
import { Directory } from './views/directory/Directory'
import { Webhooks } from './views/webhooks/Webhooks'
import { Orders } from './views/orders/Orders'
import { Inventory } from './views/inventory/Inventory'
// Calendar, queue board, the patient's own views
import { Calendar } from './views/calendar/Calendar'
import { Queues, QueueScreen } from './views/queues/QueueBoard'
import { MyRecords } from './views/me/MyRecords'
import { MyAppointments } from './views/me/MyAppointments'
import { MyQueue } from './views/me/MyQueue'
import { MyNotifications } from './views/me/MyNotifications'
import { WhoAccessed } from './views/me/WhoAccessed'

export type Audience = 'staff' | 'patient' | 'any'

export interface RouteDef {
  /** A hash path pattern: '/patients' or '/patients/:id'. */
  path: string
  /** The document's title while shown. */
  title: string
  /** Its label in the nav; omitted: not in the nav. */
  nav?: string
  audience: Audience
  component: ComponentType<{ params: Record<string, string> }>
}

export const routes: RouteDef[] = [
  // Patients, records, attachments, account
  { path: '/patients', title: 'Patients', nav: 'Patients', audience: 'staff', component: PatientList },
  { path: '/patients/:id', title: 'Patient', audience: 'staff', component: PatientPage },
  { path: '/account', title: 'My account', nav: 'My account', audience: 'any', component: AccountPage },
  // Members, organizations, billing, subscription, directory, webhooks, orders, inventory
  { path: '/billing', title: 'Billing', nav: 'Billing', audience: 'staff', component: Billing },
  { path: '/members', title: 'Members', nav: 'Members', audience: 'staff', component: Members },
  {
    path: '/subscription',
    title: 'Subscription',
    nav: 'Subscription',
    audience: 'staff',
    component: Subscription
  },
  { path: '/orders', title: 'Orders', nav: 'Orders', audience: 'staff', component: Orders },
  { path: '/inventory', title: 'Inventory', nav: 'Inventory', audience: 'staff', component: Inventory },
  { path: '/webhooks', title: 'Webhooks', nav: 'Webhooks', audience: 'staff', component: Webhooks },
  { path: '/directory', title: 'Directory', nav: 'Directory', audience: 'any', component: Directory },
  {
    path: '/join',
    title: 'Join a facility',
    nav: 'Join a facility',
    audience: 'any',
    component: JoinFacility
  },
  // Calendar, queue board, the patient's own views
  { path: '/calendar', title: 'Calendar', nav: 'Calendar', audience: 'staff', component: Calendar },
  { path: '/queues', title: 'Waiting room', nav: 'Waiting room', audience: 'staff', component: Queues },
  { path: '/queues/:id/board', title: 'Waiting-room screen', audience: 'staff', component: QueueScreen },
  { path: '/me/records', title: 'My records', nav: 'My records', audience: 'patient', component: MyRecords },
  {
    path: '/me/appointments',
    title: 'My appointments',
    nav: 'My appointments',
    audience: 'patient',
    component: MyAppointments
  },
  {
    path: '/me/queue',
    title: 'My place in the queue',
    nav: 'My queue',
    audience: 'patient',
    component: MyQueue
  },
  {
    path: '/me/notifications',
    title: 'Notifications',
    nav: 'Notifications',
    audience: 'patient',
    component: MyNotifications
  },
  {
    path: '/me/access',
    title: 'Who accessed my record',
    nav: 'Who accessed my record',
    audience: 'patient',
    component: WhoAccessed
  }
]
