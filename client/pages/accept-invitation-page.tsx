import { useParams } from 'react-router-dom';
import { NewPasswordForm } from '../components/new-password-form.tsx';
import { trpc } from '../trpc.ts';

export default function AcceptInvitationPage() {
  const { token = '' } = useParams();
  const mutation = trpc.auth.acceptInvite.useMutation();
  return (
    <NewPasswordForm
      token={token}
      titleKey="auth.acceptTitle"
      helpKey="auth.acceptHelp"
      submitKey="auth.acceptSubmit"
      doneKey="auth.acceptDone"
      submit={mutation.mutateAsync}
      pending={mutation.isPending}
    />
  );
}
