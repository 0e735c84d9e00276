import { useParams } from 'react-router-dom';
import { NewPasswordForm } from '../components/new-password-form.tsx';
import { trpc } from '../trpc.ts';

export default function ResetPasswordPage() {
  const { token = '' } = useParams();
  const mutation = trpc.auth.resetPassword.useMutation();
  return (
    <NewPasswordForm token={token} titleKey="auth.resetTitle" submitKey="auth.resetSubmit" doneKey="auth.resetDone" submit={mutation.mutateAsync} pending={mutation.isPending} />
  );
}
